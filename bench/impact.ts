/**
 * `impact.ofStop` at scale: 50 brokers in 5 racks × 100,000 partitions (RF 3, placed rack-aware
 * by the controller's placer, min.insync.replicas 2, ELR on), asked in process of the metadata
 * image the service hands it: one broker, then a whole rack (10 brokers, most partitions touched).
 * `npx tsx bench/impact.ts` runs it alone; `npm run bench -- scale` reports it as figures.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { stopImpact } from '../app/core/impact/stop-impact.js';
import { ELR_FEATURE } from '../app/core/engine.js';
import { MetadataImage } from '../app/core/metadata/image.js';
import { placeReplicas } from '../app/core/placement/index.js';
import { seededRandom } from '../app/core/random.js';

export const IMPACT_BROKERS = 50;
export const IMPACT_PARTITIONS = 100_000;
const RACKS = 5;
const PER_TOPIC = 1_000;

export interface ImpactBenchResult {
  brokerMs: number;
  rackMs: number;
  rackTouched: number;
  rackOutcomes: string;
}

function image(brokers: number, partitions: number): MetadataImage {
  const img = new MetadataImage();
  const placement = Array.from({ length: brokers }, (_, i) => ({ id: i + 1, rack: `rack-${i % RACKS}`, fenced: false, inControlledShutdown: false }));
  for (const b of placement) img.brokers.set(b.id, { id: b.id, brokerEpoch: 1, incarnationId: '', rack: b.rack, fenced: false, inControlledShutdown: false, offlineReplicas: [] });
  img.features.set(ELR_FEATURE, 1);
  const random = seededRandom(35);
  for (let t = 0; t < partitions / PER_TOPIC; t++) {
    const name = `topic-${String(t).padStart(4, '0')}`;
    const topic = { name, topicId: name, partitions: new Map(), configs: { 'min.insync.replicas': '2' } };
    placeReplicas({ brokers: placement, numPartitions: PER_TOPIC, replicationFactor: 3, strategy: 'striped', random }).forEach((replicas, p) =>
      topic.partitions.set(p, { topicId: name, partition: p, replicas, isr: [...replicas], leader: replicas[0]!, leaderEpoch: 0, partitionEpoch: 0, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 'RECOVERED' }),
    );
    img.topicsById.set(name, topic);
    img.topicsByName.set(name, topic);
  }
  return img;
}

/** The fastest of `runs` (wall ms): on a shared machine the least disturbed reading. */
function fastest<T>(runs: number, fn: () => T): { ms: number; value: T } {
  let best = Infinity;
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    value = fn();
    best = Math.min(best, performance.now() - started);
  }
  return { ms: best, value };
}

export function measureImpact(brokers = IMPACT_BROKERS, partitions = IMPACT_PARTITIONS, runs = 5): ImpactBenchResult {
  const img = image(brokers, partitions);
  const topicConfig = () => ({ minInsyncReplicas: 2, uncleanLeaderElectionEnable: false });
  const broker = fastest(runs, () => stopImpact({ image: img, topicConfig, brokers: [1] }));
  const rack = fastest(runs, () => stopImpact({ image: img, topicConfig, racks: ['rack-0'] }));
  const rackOutcomes = Object.entries(rack.value.after)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n}`)
    .join(', ');
  return { brokerMs: broker.ms, rackMs: rack.ms, rackTouched: rack.value.touched, rackOutcomes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = measureImpact();
  console.log(
    `impact.ofStop: ${IMPACT_BROKERS} brokers in ${RACKS} racks × ${IMPACT_PARTITIONS.toLocaleString('en-US')} partitions (RF 3, min ISR 2, ELR on): ` +
      `one broker ${Math.round(r.brokerMs)} ms; one rack ${Math.round(r.rackMs)} ms (fastest of 5) (${r.rackTouched.toLocaleString('en-US')} partitions touched: ${r.rackOutcomes})`,
  );
}
