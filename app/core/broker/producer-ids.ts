/**
 * A broker's producer id source for InitProducerId (Kafka's RPCProducerIdManager): it hands out
 * ids from a block the controller allocated to it (AllocateProducerIds, recorded in the metadata
 * log), and asks for the next block when this one runs out.
 *
 * Invariants: an id is handed out at most once in the cluster's life (blocks never overlap, the
 * metadata log remembers the next free one across restarts and controller failovers); at most one
 * allocation is in flight; requests that arrive meanwhile wait for it, and when it fails they get
 * COORDINATOR_LOAD_IN_PROGRESS, which clients retry (as Kafka answers while no block is ready). A
 * block is this incarnation's only: a restarted broker asks for a fresh one.
 */
import type { KafkaErrorName } from '../../api/errors.js';

export type ProducerIdAnswer = { error: 'NONE'; producerId: number } | { error: KafkaErrorName; producerId: -1 };

export interface ProducerIdSource {
  /** Ask the controller for a block; null when it could not be reached or refused. */
  allocateProducerIds(done: (block: { start: number; length: number } | null) => void): void;
}

export class ProducerIdManager {
  private next = 0;
  private end = 0;
  private waiting: ((answer: ProducerIdAnswer) => void)[] = [];
  private asking = false;
  /** Bumped by reset(): answers to an earlier incarnation's allocation are ignored. */
  private generation = 0;

  constructor(private readonly source: ProducerIdSource) {}

  /** The next producer id, now or once a block has arrived. */
  generate(done: (answer: ProducerIdAnswer) => void): void {
    if (this.next < this.end) return done({ error: 'NONE', producerId: this.next++ });
    this.waiting.push(done);
    if (this.asking) return;
    this.asking = true;
    const gen = this.generation;
    this.source.allocateProducerIds((block) => {
      if (gen !== this.generation) return;
      this.asking = false;
      if (block) {
        this.next = block.start;
        this.end = block.start + block.length;
      }
      const waiting = this.waiting;
      this.waiting = [];
      for (const w of waiting) {
        if (this.next < this.end) w({ error: 'NONE', producerId: this.next++ });
        else w({ error: 'COORDINATOR_LOAD_IN_PROGRESS', producerId: -1 });
      }
    });
  }

  /** The broker's incarnation ended: its block and waiting requests go with it. */
  reset(): void {
    this.generation++;
    this.next = 0;
    this.end = 0;
    this.waiting = [];
    this.asking = false;
  }
}
