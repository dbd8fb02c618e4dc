/** UI preferences kept in localStorage: theme (light / dark / auto = follow the OS). */
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';

export type ThemeChoice = 'light' | 'dark' | 'auto';

function stored(): ThemeChoice {
  const v = globalThis.localStorage?.getItem('replica-studio.theme');
  return v === 'light' || v === 'dark' || v === 'auto' ? v : 'auto';
}

export const useSettingsStore = defineStore('settings', () => {
  const theme = ref<ThemeChoice>(stored());
  const media = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
  const osDark = ref(media?.matches ?? false);
  media?.addEventListener?.('change', (e) => (osDark.value = e.matches));
  const dark = computed(() => (theme.value === 'auto' ? osDark.value : theme.value === 'dark'));
  watch(theme, (v) => globalThis.localStorage?.setItem('replica-studio.theme', v));
  return { theme, dark };
});
