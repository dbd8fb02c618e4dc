import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentParentChannel, nodeParentChannel, parentPortChannel, type ChildMessage, type NodeChildProcessLike, type ParentMessage, type ParentPortLike } from './engine-channel.js';

/** Electron's `process.parentPort` as far as the channel sees it: 'message' events carry `{ data }`. */
function fakeParentPort() {
  const emitter = new EventEmitter();
  const posted: unknown[] = [];
  const port: ParentPortLike = {
    on: (event, listener) => emitter.on(event, listener),
    off: (event, listener) => emitter.off(event, listener),
    postMessage: (message) => void posted.push(message),
  };
  return { port, posted, deliver: (data: unknown) => emitter.emit('message', { data, ports: [] }), listeners: () => emitter.listenerCount('message') };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the parent channel of a utility process (process.parentPort)', () => {
  it('hands the engine the data of each port event and posts its messages as they are', () => {
    const fake = fakeParentPort();
    const channel = parentPortChannel(fake.port, () => {});
    const received: ParentMessage[] = [];
    channel.onMessage((message) => received.push(message));
    fake.deliver({ id: 1, method: 'cluster.describe', input: {} });
    fake.deliver({ close: true });
    expect(received).toEqual([{ id: 1, method: 'cluster.describe', input: {} }, { close: true }]);

    const answer: ChildMessage = { id: 1, result: { ok: true, value: { clusterId: 'c' } } };
    channel.send(answer);
    expect(fake.posted).toEqual([answer]);
    expect(channel.connected).toBe(true);
  });

  it('tells the sender its message has left only after a grace, so a fatal message is not lost to the exit', () => {
    vi.useFakeTimers();
    const fake = fakeParentPort();
    const channel = parentPortChannel(fake.port, () => {}, 100);
    const sent = vi.fn();
    channel.send({ fatal: 'locked by another process' }, sent);
    expect(fake.posted).toEqual([{ fatal: 'locked by another process' }]);
    vi.advanceTimersByTime(99);
    expect(sent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(sent).toHaveBeenCalledOnce();
  });

  it('on close stops listening and exits the process itself (a utility process does not end on an empty loop)', () => {
    vi.useFakeTimers();
    const fake = fakeParentPort();
    const exit = vi.fn();
    const channel = parentPortChannel(fake.port, exit, 100);
    const received = vi.fn();
    channel.onMessage(received);
    expect(fake.listeners()).toBe(1);
    channel.close();
    expect(fake.listeners()).toBe(0);
    expect(channel.connected).toBe(false);
    channel.send({ opened: true, created: false });
    expect(fake.posted).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(exit).toHaveBeenCalledOnce();
    channel.close();
    vi.advanceTimersByTime(1_000);
    expect(exit).toHaveBeenCalledOnce();
  });

  it('answers a send on a closed port at once, so an exit waiting for it is not held up', () => {
    vi.useFakeTimers();
    const channel = parentPortChannel(fakeParentPort().port, () => {}, 100);
    channel.close();
    const sent = vi.fn();
    channel.send({ fatal: 'x' }, sent);
    vi.advanceTimersByTime(0);
    expect(sent).toHaveBeenCalledOnce();
  });
});

describe('the parent channel of a Node child (process.send)', () => {
  function fakeNodeProcess(connected = true) {
    const emitter = new EventEmitter();
    const sent: unknown[] = [];
    const proc = {
      connected,
      send: (message: unknown, callback?: (error: Error | null) => void) => {
        sent.push(message);
        callback?.(null);
        return true;
      },
      on: (event: string, listener: (...args: unknown[]) => void) => emitter.on(event, listener),
      disconnect: vi.fn(() => {
        proc.connected = false;
        emitter.emit('disconnect');
      }),
    };
    return { proc: proc as NodeChildProcessLike & typeof proc, sent, emitter };
  }

  it('passes messages both ways unchanged, reports the parent going away, and exits once closed', async () => {
    const fake = fakeNodeProcess();
    const exit = vi.fn();
    const channel = nodeParentChannel(fake.proc, exit);
    const received: ParentMessage[] = [];
    channel.onMessage((message) => received.push(message));
    const gone = vi.fn();
    channel.onDisconnect(gone);
    fake.emitter.emit('message', { id: 3, method: 'topics.list', input: {} });
    expect(received).toEqual([{ id: 3, method: 'topics.list', input: {} }]);
    const sent = vi.fn();
    channel.send({ opened: true, created: false }, sent);
    expect(fake.sent).toEqual([{ opened: true, created: false }]);
    expect(sent).toHaveBeenCalledOnce();
    channel.close();
    expect(fake.proc.disconnect).toHaveBeenCalledOnce();
    expect(gone).toHaveBeenCalledOnce();
    expect(channel.connected).toBe(false);
    // It exits itself once the channel has closed, rather than leave the end to Node's cleanup.
    expect(exit).not.toHaveBeenCalled();
    await new Promise((r) => setImmediate(r));
    expect(exit).toHaveBeenCalledOnce();
  });

  it('drops a message once the channel is closed but still calls back', () => {
    const fake = fakeNodeProcess(false);
    const channel = nodeParentChannel(fake.proc);
    const sent = vi.fn();
    channel.send({ ready: true, brokersReady: true }, sent);
    expect(fake.sent).toEqual([]);
    expect(sent).toHaveBeenCalledOnce();
  });
});

describe('currentParentChannel', () => {
  it('picks the utility-process port when there is one, the Node channel otherwise, and nothing without a parent', () => {
    const fake = fakeParentPort();
    const utility = currentParentChannel({ parentPort: fake.port, send: () => true, connected: true } as unknown as NodeJS.Process);
    utility!.send({ opened: true, created: false });
    expect(fake.posted).toEqual([{ opened: true, created: false }]);

    const sent: unknown[] = [];
    const node = currentParentChannel({ send: (m: unknown) => sent.push(m) > 0, connected: true, on: () => {} } as unknown as NodeJS.Process);
    node!.send({ opened: true, created: false });
    expect(sent).toEqual([{ opened: true, created: false }]);

    expect(currentParentChannel({ on: () => {} } as unknown as NodeJS.Process)).toBeUndefined();
  });
});
