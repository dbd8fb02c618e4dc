/**
 * Builds the console (renderer/) into dist/renderer: one index.html plus hashed assets, served by
 * the headless host at `/` and by Electron over app://. Relative asset paths (`base: './'`) so
 * the same build works under both origins.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

const root = fileURLToPath(new URL('./renderer', import.meta.url));

export default defineConfig({
  root,
  base: './',
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    sourcemap: false,
  },
  server: { host: '127.0.0.1' },
});
