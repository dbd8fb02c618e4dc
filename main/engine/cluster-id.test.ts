import { describe, expect, it } from 'vitest';
import { CLUSTER_ID_SETTING, clusterIdOf, newClusterId } from './cluster-id.js';

describe('cluster ids', () => {
  it('are 16 random bytes in URL-safe base64 without padding, as kafka-storage.sh random-uuid prints them', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newClusterId()));
    expect(ids.size).toBe(200);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    }
  });

  it('draw again for an id starting with "-", the all-zero id and the metadata topic id, as Kafka’s Uuid.randomUuid does', () => {
    const draws = [new Uint8Array(16).fill(0xfb), new Uint8Array(16), Uint8Array.from([...new Array(15).fill(0), 1]), Uint8Array.from({ length: 16 }, (_, i) => i + 1)];
    const id = newClusterId(() => draws.shift()!);
    expect(id).toBe(Buffer.from(Uint8Array.from({ length: 16 }, (_, i) => i + 1)).toString('base64url'));
    expect(draws).toHaveLength(0);
  });

  it('are created once and read back from the cluster’s settings afterwards', () => {
    const settings: Record<string, string> = {};
    const store = { loadSettings: () => ({ ...settings }), saveSetting: (k: string, v: string) => void (settings[k] = v) };
    const first = clusterIdOf(store);
    expect(settings[CLUSTER_ID_SETTING]).toBe(first);
    expect(clusterIdOf(store)).toBe(first);
  });
});
