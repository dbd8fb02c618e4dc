/**
 * Toasts outside components (stores raise them): Naive UI's discrete API, themed like the app.
 * An error toast shows the Kafka error name, the engine's message and what to do about it.
 */
import { createDiscreteApi, darkTheme, type ConfigProviderProps } from 'naive-ui';
import { computed, h, type Ref } from 'vue';
import { ClientError } from '../api/client.js';
import { errorHelp } from '../api/error-help.js';

type Api = Pick<ReturnType<typeof createDiscreteApi>, 'message' | 'notification'>;
let api: Api | undefined;

/**
 * Toasts open below the shell's top bar (about 45 px high), never over it: the connection status,
 * the active connection and the theme stay readable and clickable while a toast shows.
 */
const BELOW_TOP_BAR = { top: '56px' };

export function installNotify(dark: Ref<boolean>): void {
  const configProviderProps = computed<ConfigProviderProps>(() => ({ theme: dark.value ? darkTheme : null }));
  api = createDiscreteApi(['message', 'notification'], { configProviderProps, messageProviderProps: { containerStyle: BELOW_TOP_BAR }, notificationProviderProps: { containerStyle: BELOW_TOP_BAR } });
}

export function notifySuccess(text: string): void {
  api?.message.success(() => h('span', { 'data-testid': 'success-toast' }, text), { duration: 3000 });
}

export function notifyInfo(text: string): void {
  api?.message.info(text, { duration: 3000 });
}

/** What to show for an error: title = Kafka's code, body = message + what to do. */
export function describeError(e: unknown): { title: string; message: string; help?: string } {
  if (e instanceof ClientError) {
    const help = errorHelp(e.code);
    return { title: e.code, message: e.error.message, ...(help ? { help } : {}) };
  }
  return { title: 'Error', message: e instanceof Error ? e.message : String(e) };
}

const ERROR_MS = 8000;
/** Error toasts on screen: title + message → until when. */
const shown = new Map<string, number>();

export function notifyError(e: unknown, context?: string): void {
  // A change to an external cluster the user did not confirm: nothing failed, nothing was sent.
  if (e instanceof ClientError && e.code === 'CANCELLED' && (e.error.details as { declined?: boolean } | undefined)?.declined) {
    notifyInfo(e.error.message);
    return;
  }
  const d = describeError(e);
  if (!api) {
    console.error(context ?? '', e);
    return;
  }
  const title = context ? `${context}: ${d.title}` : d.title;
  // The same error twice while the first still shows (two stores refused one click, a retry) is one message.
  const key = `${title}\u0000${d.message}`;
  const now = Date.now();
  if ((shown.get(key) ?? 0) > now) return;
  shown.set(key, now + ERROR_MS);
  for (const [k, until] of shown) if (until <= now) shown.delete(k);
  api.notification.error({
    title,
    content: () => h('div', { 'data-testid': 'error-toast' }, [h('div', d.message), d.help ? h('div', { style: 'margin-top:6px;opacity:.85' }, d.help) : null]),
    duration: ERROR_MS,
    keepAliveOnHover: true,
    onAfterLeave: () => void shown.delete(key),
  });
}
