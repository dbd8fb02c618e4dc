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

export function installNotify(dark: Ref<boolean>): void {
  const configProviderProps = computed<ConfigProviderProps>(() => ({ theme: dark.value ? darkTheme : null }));
  api = createDiscreteApi(['message', 'notification'], { configProviderProps });
}

export function notifySuccess(text: string): void {
  api?.message.success(text, { duration: 3000 });
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
  api.notification.error({
    title: context ? `${context}: ${d.title}` : d.title,
    content: () => h('div', { 'data-testid': 'error-toast' }, [h('div', d.message), d.help ? h('div', { style: 'margin-top:6px;opacity:.85' }, d.help) : null]),
    duration: 8000,
    keepAliveOnHover: true,
  });
}
