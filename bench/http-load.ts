/**
 * The load generator of `describe-under-load.ts`, in a process of its own (as a browser would
 * be): forked with `{ origin, token, topic, partitions, producers, records, valueBytes }` as its
 * one JSON argument, it keeps `producers` `records.produce` requests (acks=all) in flight over
 * HTTP until it receives `{ stop: true }`, then replies `{ produced, errors }` and exits.
 */
interface LoadOptions {
  origin: string;
  token: string;
  topic: string;
  partitions: number;
  producers: number;
  records: number;
  valueBytes: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
const body = (partition: number): string =>
  JSON.stringify({ topic: options.topic, partition, acks: 'all', records: Array.from({ length: options.records }, () => ({ value: 'x'.repeat(options.valueBytes) })) });
const bodies = Array.from({ length: options.partitions }, (_, p) => body(p));

let stop = false;
let produced = 0;
let errors = 0;
let next = 0;

async function producer(): Promise<void> {
  while (!stop) {
    try {
      const res = await fetch(`${options.origin}/api/records.produce`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' },
        body: bodies[next++ % bodies.length]!,
        signal: AbortSignal.timeout(30_000),
      });
      const r = (await res.json()) as { ok: boolean };
      if (stop) break;
      if (r.ok) produced++;
      else errors++;
    } catch {
      if (!stop) errors++;
    }
  }
}

const loops = Array.from({ length: options.producers }, producer);
process.on('message', (message: { stop?: boolean }) => {
  if (!message.stop) return;
  const counted = { produced, errors };
  stop = true;
  process.send!(counted, () => {
    void Promise.all(loops).finally(() => process.exit(0));
  });
});
process.on('disconnect', () => process.exit(0));
process.send!({ started: true });
