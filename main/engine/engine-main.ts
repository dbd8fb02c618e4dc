/**
 * The engine process's entry file: what `child_process.fork` (remote-service.ts) and the Electron
 * engine bundle (vite.electron.config.ts) run. It starts the engine as soon as it loads, so
 * nothing imports it; the engine itself is `engine-process.ts`. Being only an entry, it needs no
 * "am I the main module?" check, which a CJS bundle could not answer from `import.meta`.
 */
import { startEngineProcess } from './engine-process.js';

startEngineProcess(process.argv[2]);
