/**
 * `npm run build:electron`: bundle the three Electron entries (main, preload, engine) into
 * dist/electron/*.cjs, one vite build per entry (see vite.electron.config.ts for why).
 */
import { join } from 'node:path';
import esMain from 'es-main';
import { build } from 'vite';
import { electronBuildConfig, electronEntries, type ElectronEntry } from '../vite.electron.config.js';

const ROOT = join(import.meta.dirname, '..');

/** Build every entry (in order) into `outDir`; resolves with the files written. */
export async function buildElectronBundles(outDir = join(ROOT, 'dist', 'electron')): Promise<string[]> {
  const written: string[] = [];
  for (const entry of Object.keys(electronEntries) as ElectronEntry[]) {
    await build({ ...electronBuildConfig(entry, outDir), root: ROOT });
    written.push(join(outDir, `${entry}.cjs`));
  }
  return written;
}

if (esMain(import.meta)) {
  buildElectronBundles().then(
    (files) => process.stdout.write(`${files.map((f) => `built ${f}`).join('\n')}\n`),
    (e: unknown) => {
      process.stderr.write(`build:electron: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
