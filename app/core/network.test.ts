import { describe, expect, it } from 'vitest';
import { Network, type FailureReason } from './network.js';
import { ManualScheduler } from './time.js';

function setup() {
  const s = new ManualScheduler();
  const net = new Network(s);
  net.baseDelayMs = 1;
  net.bind(1, (_from, msg, reply) => reply(`echo:${String(msg)}`));
  net.bind(2, () => {});
  const outcome: { reply?: unknown; failure?: FailureReason; at?: number } = {};
  const send = (to: number, timeout = 1_000) =>
    net.request(2, to, 'hi', timeout, (r) => Object.assign(outcome, { reply: r, at: s.now() }), (f) => Object.assign(outcome, { failure: f, at: s.now() }));
  return { s, net, outcome, send };
}

describe('in-process network', () => {
  it('delivers a request and its reply after the link delay each way', () => {
    const { s, outcome, send } = setup();
    send(1);
    s.advance(10);
    expect(outcome).toEqual({ reply: 'echo:hi', at: 2 });
  });

  it('a request to a dead process fails fast with disconnected', () => {
    const { s, net, outcome, send } = setup();
    net.unbind(1);
    send(1);
    s.advance(10);
    expect(outcome.failure).toBe('disconnected');
  });

  it('a request over a cut link is lost and times out; healing restores delivery', () => {
    const { s, net, outcome, send } = setup();
    net.isolate(1);
    send(1, 500);
    s.advance(1_000);
    expect(outcome).toMatchObject({ failure: 'timeout', at: 500 });
    net.heal(1);
    send(1);
    s.advance(10);
    expect(outcome.reply).toBe('echo:hi');
  });

  it('a crash resets waiting connections, a power loss does not', () => {
    const { s, net, outcome } = setup();
    net.bind(3, () => {}); // never answers
    net.request(2, 3, 'x', 5_000, () => {}, (f) => Object.assign(outcome, { failure: f, at: s.now() }));
    s.advance(5);
    net.unbind(3, true);
    s.advance(10);
    expect(outcome).toMatchObject({ failure: 'disconnected' });
    net.bind(4, () => {});
    const late: { failure?: FailureReason; at?: number } = {};
    net.request(2, 4, 'x', 5_000, () => {}, (f) => Object.assign(late, { failure: f, at: s.now() }));
    s.advance(5);
    net.unbind(4, false);
    s.advance(10_000);
    expect(late.failure).toBe('timeout');
  });

  it('a reply never reaches a restarted sender (a new incarnation)', () => {
    const { s, net, outcome, send } = setup();
    send(1);
    net.unbind(2);
    net.bind(2, () => {});
    s.advance(10);
    expect(outcome).toEqual({});
  });
});
