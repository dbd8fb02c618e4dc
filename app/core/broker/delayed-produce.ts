/**
 * acks=all writes waiting for the high watermark on one partition leader (Kafka's
 * DelayedProduce purgatory). A waiter completes exactly once: when the HW reaches the end of its
 * batch (answered with what `outcome` says then: NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when
 * the ISR shrank below min.insync.replicas), when its request timeout passes (REQUEST_TIMED_OUT),
 * or when leadership ends (the error the partition names).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { Scheduler, TimerHandle } from '../time.js';

export interface DelayedOutcome {
  errorCode: KafkaErrorName;
  baseOffset: number;
}

interface Waiter<O> {
  requiredOffset: number;
  baseOffset: number;
  respond: (outcome: O | DelayedOutcome) => void;
  timer: TimerHandle;
}

export class DelayedProduces<O> {
  private waiters: Waiter<O>[] = [];

  constructor(
    private readonly scheduler: Scheduler,
    /** What a completed write is answered with (read when it completes). */
    private readonly outcome: (baseOffset: number) => O,
  ) {}

  /** Park an answer until the HW reaches `required`, or REQUEST_TIMED_OUT after `timeoutMs`. */
  wait(required: number, baseOffset: number, timeoutMs: number, respond: (outcome: O | DelayedOutcome) => void): void {
    const waiter: Waiter<O> = {
      requiredOffset: required,
      baseOffset,
      respond,
      timer: this.scheduler.schedule(timeoutMs, () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        respond({ errorCode: 'REQUEST_TIMED_OUT', baseOffset });
      }),
    };
    this.waiters.push(waiter);
  }

  /** The HW moved to `hw`: answer every write it now covers. */
  complete(hw: number): void {
    if (this.waiters.length === 0) return;
    const done = this.waiters.filter((w) => w.requiredOffset <= hw);
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.requiredOffset > hw);
    for (const w of done) {
      this.scheduler.cancel(w.timer);
      w.respond(this.outcome(w.baseOffset));
    }
  }

  /** Leadership ended: every waiting write gets `error`. */
  failAll(error: KafkaErrorName): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      this.scheduler.cancel(w.timer);
      w.respond({ errorCode: error, baseOffset: w.baseOffset });
    }
  }
}
