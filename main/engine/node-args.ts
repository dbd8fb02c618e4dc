/**
 * The V8 flags of the processes this project starts with Node: the engine's (a Node child or
 * Electron's utility process) and the headless host's. Kept apart from the code that starts
 * them so the launcher (main/start.ts) and the benchmark take them without loading the host.
 */

/**
 * V8 flags of the engine's process. Its young generation is capped at 2 MiB per semi-space
 * (V8's default grows to 16 MiB, 48 MiB of young generation with its promotion space): the
 * engine holds its state in long-lived objects, so a large nursery only keeps garbage resident.
 * --expose-gc lets the memory settler (memory-settler.ts) ask for a collection once a burst of
 * work is over. --heap-growing-percent=20 lets the old generation grow to 1.2 × what was live
 * before the next full collection instead of V8's dynamic factor (up to 2×): an idle engine still
 * makes a little garbage, and the slack V8 would allow it stays resident. It costs the wire produce
 * nothing measurable, unlike V8's --optimize-for-size, which saves more memory but costs produce
 * throughput (docs/performance.md).
 * --no-memory-reducer: once allocation slows, V8's memory reducer runs two or three extra full
 * collections after every full collection, and an idle cluster is never quite idle (followers
 * poll their leaders twice a second), so it kept doing so and about doubled an idle cluster's CPU.
 * Giving memory back after a burst is the memory settler's job, and the RSS after a restart does
 * not suffer for it (docs/performance.md).
 */
export const ENGINE_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2', '--expose-gc', '--heap-growing-percent=20', '--no-memory-reducer'];

/**
 * V8 flags of the headless host's own process (`npm run serve`, `npm start` in browser mode, the
 * scale benchmark): the same young-generation cap. The host relays the engine's answers as JSON,
 * and with the default nursery those short-lived strings stay resident.
 * package.json's `serve` script spells the same flags (node-args.test checks it).
 */
export const HOST_NODE_ARGS: readonly string[] = ['--max-semi-space-size=2'];
