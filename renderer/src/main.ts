/** Boot: pick the transport, install Pinia, the router and the toasts, then mount. */
import { createPinia } from 'pinia';
import { createApp, toRef } from 'vue';
import App from './App.vue';
import { defaultClient, setClient } from './api/instance.js';
import { installExternalConfirm } from './lib/confirm-external.js';
import { installNotify } from './lib/notify.js';
import { createAppRouter } from './router.js';
import { useCapabilitiesStore } from './stores/capabilities.js';
import { useClusterStore } from './stores/cluster.js';
import { useEventStreamStore } from './stores/event-stream.js';
import { useMetricsStore } from './stores/metrics.js';
import { useSettingsStore } from './stores/settings.js';

setClient(defaultClient());
const app = createApp(App);
const pinia = createPinia();
app.use(pinia);
app.use(createAppRouter());
installNotify(toRef(useSettingsStore(), 'dark'));
installExternalConfirm(toRef(useSettingsStore(), 'dark'));
void useCapabilitiesStore().load();
useEventStreamStore().start();
useClusterStore().start();
useMetricsStore().start();
app.mount('#app');
