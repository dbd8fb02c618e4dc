/**
 * The console's pages. Hash history: the same build works from the headless host (`/`) and from
 * Electron's app:// without server-side fallbacks. Views are loaded on demand so the first paint
 * only pays for the page it shows.
 */
import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';
import { useTopicStore } from './stores/topic.js';

export const routes: RouteRecordRaw[] = [
  { path: '/', name: 'overview', component: () => import('./views/OverviewView.vue'), meta: { title: 'Overview' } },
  { path: '/brokers', name: 'brokers', component: () => import('./views/BrokersView.vue'), meta: { title: 'Brokers' } },
  { path: '/topics', name: 'topics', component: () => import('./views/TopicsView.vue'), meta: { title: 'Topics' } },
  { path: '/topics/:name', name: 'topic', component: () => import('./views/TopicDetailView.vue'), props: true, meta: { title: 'Topic' }, beforeEnter: (to) => prefetchTopic(String(to.params.name)) },
  { path: '/balance', name: 'balance', component: () => import('./views/BalanceView.vue'), meta: { title: 'Balance' } },
  { path: '/leaders', name: 'leaders', component: () => import('./views/LeadersView.vue'), meta: { title: 'Leaders' } },
  { path: '/impact', name: 'impact', component: () => import('./views/ImpactView.vue'), meta: { title: 'Impact' } },
  { path: '/configs', name: 'configs', component: () => import('./views/ConfigsView.vue'), meta: { title: 'Configs' } },
  { path: '/profiles', name: 'profiles', component: () => import('./views/ProfilesView.vue'), meta: { title: 'Profiles' } },
  { path: '/drills', name: 'drills', component: () => import('./views/DrillsView.vue'), meta: { title: 'Drills' } },
  { path: '/connections', name: 'connections', component: () => import('./views/ConnectionsView.vue'), meta: { title: 'Connections' } },
  { path: '/groups', name: 'groups', component: () => import('./views/GroupsView.vue'), meta: { title: 'Consumer groups' } },
  { path: '/messages', name: 'messages', component: () => import('./views/MessagesView.vue'), meta: { title: 'Messages' } },
  { path: '/schemas', name: 'schemas', component: () => import('./views/SchemasView.vue'), meta: { title: 'Schemas' } },
  { path: '/security/:tab?', name: 'security', component: () => import('./views/SecurityView.vue'), meta: { title: 'Security' } },
  { path: '/transactions', name: 'transactions', component: () => import('./views/TransactionsView.vue'), meta: { title: 'Transactions' } },
  { path: '/:pathMatch(.*)*', name: 'not-found', component: () => import('./views/NotFoundView.vue'), meta: { title: 'Not found' } },
];

/**
 * The topic page's first read (topics.describe, the brokers) starts while the page's code loads,
 * not once it has run: on a topic of 1,000 partitions that read is a good part of the first render.
 * The page shows the store's answer; a failure here is the page's own read's to report.
 */
function prefetchTopic(name: string): void {
  try {
    useTopicStore(name)
      .refresh()
      .catch(() => {});
  } catch {
    // No store to read into (no Pinia yet): the page reads the topic itself.
  }
}

export function createAppRouter() {
  const router = createRouter({ history: createWebHashHistory(), routes });
  router.afterEach((to) => {
    document.title = `${String(to.meta.title ?? '')} · Replica Studio`;
  });
  return router;
}
