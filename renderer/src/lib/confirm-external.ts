/**
 * The console's confirmation for a change to an external cluster (api/external-changes.ts decides
 * which calls need it): a dialog that names the connection and its bootstrap servers and says what
 * will change; only "Change <name>" sends the call. Closing it any other way sends nothing.
 */
import { createDiscreteApi, darkTheme, type ConfigProviderProps } from 'naive-ui';
import { computed, h, type Ref } from 'vue';
import { setExternalConfirmer } from '../api/external-changes.js';

export function installExternalConfirm(dark: Ref<boolean>): void {
  const configProviderProps = computed<ConfigProviderProps>(() => ({ theme: dark.value ? darkTheme : null }));
  const { dialog } = createDiscreteApi(['dialog'], { configProviderProps });
  setExternalConfirmer(
    ({ connection, change }) =>
      new Promise<boolean>((resolve) => {
        let answered = false;
        const answer = (yes: boolean): void => {
          if (answered) return;
          answered = true;
          resolve(yes);
        };
        dialog.warning({
          title: `Change the external cluster ${connection.name}?`,
          content: () =>
            h('div', { 'data-testid': 'external-confirm' }, [
              h('p', [`This will ${change} on `, h('strong', connection.name), connection.bootstrap ? ` (${connection.bootstrap})` : '', ', a Kafka cluster this console does not run.']),
              h('p', { style: 'opacity:.85' }, 'Other clients of that cluster see the change at once.'),
            ]),
          positiveText: `Change ${connection.name}`,
          negativeText: 'Cancel',
          maskClosable: false,
          onPositiveClick: () => answer(true),
          onNegativeClick: () => answer(false),
          onClose: () => answer(false),
          onAfterLeave: () => answer(false),
        });
      }),
  );
}
