/**
 * What the engine's bundles (the forked Node engine's, `engine-bundle.ts`, and Electron's
 * utility-process engine, `vite.electron.config.ts`) leave out of the packages they bundle.
 *
 * zstd-codec ships its library twice, compiled by Emscripten: to WebAssembly
 * (`zstd-codec-binding-wasm.js`) and to asm.js (`zstd-codec-binding.js`), which its loader
 * requires only where WebAssembly is missing. Node and Electron always have WebAssembly, so the
 * asm.js build is dead code — 5.4 MB of the 8.2 MB engine bundle, and V8 keeps a script's source
 * for as long as the process runs. The bundles take a one-line module in its place that throws if
 * it is ever called.
 */

/** zstd-codec's asm.js build, as a bundler names the file (an absolute path). */
export const ZSTD_ASMJS_FILE = /[\\/]zstd-codec[\\/]lib[\\/]zstd-codec-binding\.js$/;

/** A name found only in the asm.js build's code (the tests look for it in the bundles). */
export const ZSTD_ASMJS_MARKER = 'scratchBuffer';

/** What is bundled instead of the asm.js build (CommonJS, as zstd-codec's loader requires it). */
export const ZSTD_ASMJS_STANDIN =
  "module.exports = function () { throw new Error('zstd-codec needs WebAssembly here: its asm.js build is not bundled'); };";
