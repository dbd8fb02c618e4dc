import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useClusterStore } from './cluster.js';
import { useEventStreamStore } from './event-stream.js';

describe('cluster store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reads the default 3-broker cluster, its controller and its clock', async () => {
    const store = useClusterStore();
    await store.refresh();
    expect(store.cluster?.brokers.map((b) => b.id)).toEqual([1, 2, 3]);
    expect(store.cluster?.controllerId).toBeTypeOf('number');
    expect(store.clock?.mode).toBe('realtime');
    expect(store.healthy).toBe(true);
  });

  it('hears a broker being killed on the event stream and shows it in the broker list', async () => {
    const stream = useEventStreamStore();
    const store = useClusterStore();
    stream.start();
    store.start();
    await until(() => stream.status === 'open');
    await h.client.call('brokers.kill', { brokerId: 3 });
    await until(() => store.brokers.find((b) => b.id === 3)?.state === 'killed');
    await until(() => stream.recent.some((e) => e.type === 'broker.stateChanged' && e.brokerId === 3));
  });

  it('sets the time scale and reads it back from the engine', async () => {
    const store = useClusterStore();
    await store.setScale(10);
    expect(store.clock?.scale).toBe(10);
    await store.refresh();
    expect(store.clock?.scale).toBe(10);
  });
});
