/**
 * The V8 flags of the processes this project starts with Node: the engine's (a Node child or
 * Electron's utility process) and the headless host's. Kept apart from the code that starts
 * them so the launcher (main/start.ts) and the benchmark take them without loading the host.
 */

/**
 * V8 flags of the engine's process. Its young generation is capped at 2 MiB per semi-space
 * (V8's default grows to 16 MiB, 48 MiB of young generation with its promotion space): the
 * engine holds its state in long-lived objects, so a large nursery only keeps garbage resident
 * — at 10,000 partitions it cost some 45 MB of RSS (bench: npm run bench -- scale).
 * --expose-gc lets the memory settler (memory-settler.ts) ask for a collection once a burst of
 * work is over. --heap-growing-percent=20 lets the old generation grow to 1.2 × what was live
 * before the next full collection instead of V8's dynamic factor (up to 2×): an idle engine at
 * 10,000 partitions still makes a little garbage, and the slack it was allowed held ~30 MB of RSS
 * after a reopen (245 → 201–216 MB, restart through the headless host, npm run bench -- scale).
 * The wire benchmark kept its throughput with it (npm run bench -- wire, A/B); V8's
 * --optimize-for-size saved ~50 MB but cost the wire produce about a quarter of its records.
 * --no-memory-reducer: once allocation slows, V8's memory reducer runs two or three extra full
 * collections after every full collection, and an idle cluster is never quite idle (followers
 * poll their leaders twice a second), so it kept doing so: at 10,000 partitions idle, host +
 * engine used 0.033–0.038 core with it and 0.015–0.017 without (restart of the same data
 * directory, 20 s windows, alternating). Giving memory back after a burst is the memory
 * settler's job; the RSS after a restart stayed within the noise (295–314 MB against 298–309).
 */
export const ENGINE_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2', '--expose-gc', '--heap-growing-percent=20', '--no-memory-reducer'];

/**
 * V8 flags of the headless host's own process (`npm run serve`, `npm start` in browser mode, the
 * scale benchmark): the same young-generation cap. The host relays the engine's answers as JSON; with the default
 * nursery, those strings kept ~40 MB more resident at 10,000 partitions (145 → 106 MB).
 * package.json's `serve` script spells the same flags (node-args.test checks it).
 */
export const HOST_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2'];
