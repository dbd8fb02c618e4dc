/**
 * `npm run build:engine` (and `npm run serve` with `host`): bundle the forked Node engine
 * (`main/engine/engine-main.ts` into `dist/engine-node/engine.mjs`) or the headless host
 * (`main/cli/cli.ts` into `dist/host-node/cli.mjs`) with esbuild, unless the bundle is fresh.
 * A host whose bundle is stale runs this script itself (`main/engine/bundle-entry.ts`, which also
 * says when a bundle is fresh and what the manifest on its first line holds).
 *
 *   tsx scripts/engine-bundle.ts            the engine's bundle
 *   tsx scripts/engine-bundle.ts host       the host's bundle
 *   tsx scripts/engine-bundle.ts ENTRY OUT  ENTRY's bundle into OUT
 *
 * better-sqlite3 stays external (native); what else is left out is in `bundle-omissions.ts`.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import esMain from 'es-main';
import { BUNDLE_SCRIPT, ENGINE_BUNDLE, ENGINE_SOURCE, HOST_BUNDLE, HOST_SOURCE, MANIFEST_PREFIX, staleReason, type BundleManifest } from '../main/engine/bundle-entry.js';
import { ZSTD_ASMJS_FILE, ZSTD_ASMJS_STANDIN } from './bundle-omissions.js';

/**
 * `text` with every character outside printable ASCII (tab and line ends kept) written as a \u
 * escape. esbuild already escapes them in strings and identifiers, but keeps comments as they
 * are; one "—" in a comment made V8 hold the whole 8 MB source as a two-byte string (16 MB of the
 * engine's heap for as long as it runs). In a comment the escape is only text; anywhere else it
 * means the same character.
 */
export function asciiOnly(text: string): string {
  return text.replace(/[^\t\n\r\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Bundle `entry` into `outFile` (temporary name, then renamed); resolves with the manifest written. */
export async function buildEngineBundle(outFile = ENGINE_BUNDLE, entry = ENGINE_SOURCE): Promise<BundleManifest> {
  const { build, stop } = await import('esbuild');
  const builtAtMs = Date.now();
  // esbuild's service process would otherwise stay beside this one until it exits.
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    // No keepNames: its __name() wrapper redefines `name` on every closure a hot path creates (6.8 %
    // of what the engine allocated under wire produce); V8 infers the names from the source anyway,
    // and the Electron engine bundle (Vite) never had the wrapper.
    keepNames: false,
    plugins: [{ name: 'omit-zstd-asmjs', setup: (b) => b.onLoad({ filter: ZSTD_ASMJS_FILE }, () => ({ contents: ZSTD_ASMJS_STANDIN, loader: 'js' })) }],
    write: false,
    metafile: true,
    outfile: outFile,
    logLevel: 'silent',
    // CommonJS packages in an ES module bundle (zstd-codec's Emscripten loader, fflate's worker
    // shim) still see require, __filename and __dirname.
    banner: {
      js: [
        "import { createRequire as __rsCreateRequire } from 'node:module';",
        "import { fileURLToPath as __rsFileURLToPath } from 'node:url';",
        "import { dirname as __rsDirname } from 'node:path';",
        'const require = __rsCreateRequire(import.meta.url);',
        'const __filename = __rsFileURLToPath(import.meta.url);',
        'const __dirname = __rsDirname(__filename);',
      ].join('\n'),
    },
  }).finally(() => stop());
  const code = result.outputFiles.find((f) => f.path.endsWith('.mjs'));
  if (!code) throw new Error('esbuild wrote no bundle');
  // This script is an input too: a bundle built with other options is stale.
  const manifest: BundleManifest = { builtAtMs, inputs: [...Object.keys(result.metafile.inputs).map((f) => resolve(f)), BUNDLE_SCRIPT] };
  mkdirSync(dirname(outFile), { recursive: true });
  const tmp = `${outFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, asciiOnly(`${MANIFEST_PREFIX}${JSON.stringify(manifest)}\n${code.text}`));
  renameSync(tmp, outFile);
  return manifest;
}

if (esMain(import.meta)) {
  const [first, second] = process.argv.slice(2);
  const host = first === 'host';
  const [out, entry] = second !== undefined ? [resolve(second), resolve(first!)] : host ? [HOST_BUNDLE, HOST_SOURCE] : [ENGINE_BUNDLE, ENGINE_SOURCE];
  if (staleReason(out) !== undefined) buildEngineBundle(out, entry).then(
    (m) => process.stdout.write(`built ${out} from ${m.inputs.length} files\n`),
    (e: unknown) => {
      process.stderr.write(`${entry === HOST_SOURCE ? 'host' : 'engine'} bundle: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
