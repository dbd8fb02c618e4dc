/**
 * Bundles one Electron entry into one self-contained CJS file in dist/electron:
 *   ELECTRON_ENTRY=main|preload vite build -c vite.electron.config.ts
 * One build per entry on purpose: building both in one run makes a shared chunk that the
 * preload would have to require(), which a sandboxed preload cannot (toolchain.md §2c).
 * better-sqlite3 stays external in main (a native module, rebuilt for Electron's ABI).
 */
import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';

const entries = { main: 'main/electron/main.ts', preload: 'main/preload/preload.ts' } as const;
type Entry = keyof typeof entries;

export function electronBuildConfig(entry: Entry, outDir = 'dist/electron') {
  const external = ['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...(entry === 'main' ? ['better-sqlite3'] : [])];
  return {
    configFile: false as const,
    logLevel: 'warn' as const,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'node22',
      minify: false,
      ssr: true,
      // The main bundle ships its dependencies; `ssr` would otherwise leave them external.
      lib: { entry: { [entry]: entries[entry] }, formats: ['cjs' as const] },
      rollupOptions: { external, output: { entryFileNames: '[name].cjs' } },
    },
    ssr: { noExternal: true as const, external: entry === 'main' ? ['better-sqlite3'] : [] },
  };
}

const entry = (process.env.ELECTRON_ENTRY ?? 'main') as Entry;
if (!(entry in entries)) throw new Error(`ELECTRON_ENTRY must be one of ${Object.keys(entries).join(', ')}`);

export default defineConfig(electronBuildConfig(entry));
