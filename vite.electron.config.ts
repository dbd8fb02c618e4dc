/**
 * Bundles one Electron entry into one self-contained CJS file in dist/electron:
 *   ELECTRON_ENTRY=main|preload|engine vite build -c vite.electron.config.ts
 * (or all three: scripts/electron-build.ts).
 *   main     the Electron main process (main/electron/main.ts)
 *   preload  the sandboxed preload (main/preload/preload.ts)
 *   engine   the engine, run in a utility process that main forks by path (main/engine/engine-main.ts)
 * One build per entry on purpose: building several in one run makes shared chunks that the
 * preload would have to require(), which a sandboxed preload cannot.
 * better-sqlite3 stays external where the engine is (a native module, rebuilt for Electron's ABI);
 * zstd-codec's asm.js build is left out of it (scripts/bundle-omissions.ts).
 */
import { builtinModules } from 'node:module';
import { defineConfig } from 'vite';
import { ZSTD_ASMJS_FILE, ZSTD_ASMJS_STANDIN } from './scripts/bundle-omissions.js';

export const electronEntries = { main: 'main/electron/main.ts', preload: 'main/preload/preload.ts', engine: 'main/engine/engine-main.ts' } as const;
export type ElectronEntry = keyof typeof electronEntries;
/** zstd-codec's asm.js build is loaded as a stand-in (scripts/bundle-omissions.ts). */
const omitZstdAsmJs = { name: 'omit-zstd-asmjs', load: (id: string) => (ZSTD_ASMJS_FILE.test(id) ? ZSTD_ASMJS_STANDIN : null) };

export function electronBuildConfig(entry: ElectronEntry, outDir = 'dist/electron') {
  const native = entry === 'preload' ? [] : ['better-sqlite3'];
  const external = ['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...native];
  return {
    configFile: false as const,
    logLevel: 'warn' as const,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'node22',
      minify: false,
      ssr: true,
      // Each bundle ships its dependencies; `ssr` would otherwise leave them external.
      lib: { entry: { [entry]: electronEntries[entry] }, formats: ['cjs' as const] },
      rollupOptions: { external, output: { entryFileNames: '[name].cjs' } },
    },
    plugins: [omitZstdAsmJs],
    ssr: { noExternal: true as const, external: native },
  };
}

const entry = (process.env.ELECTRON_ENTRY ?? 'main') as ElectronEntry;
if (!(entry in electronEntries)) throw new Error(`ELECTRON_ENTRY must be one of ${Object.keys(electronEntries).join(', ')}`);

export default defineConfig(electronBuildConfig(entry));
