import { describe, expect, it } from 'vitest';
import { Simulation } from './simulation.js';

describe('topic ids', () => {
  it('are Kafka Uuids: 16 bytes in URL-safe base64 (22 characters, round-tripping), never led by "-", all different', () => {
    const ids = new Set<string>();
    for (const seed of [1, 2, 3]) {
      const sim = new Simulation({ brokers: 1, seed });
      for (let t = 0; t < 200; t++) {
        const { topicId } = sim.engine.createTopic({ name: `t${t}`, partitions: 1, replicationFactor: 1, configs: {} });
        const bytes = Buffer.from(topicId, 'base64url');
        expect(topicId).toHaveLength(22);
        expect(bytes).toHaveLength(16);
        // A 22nd character with bits past the 128th would decode to the same bytes and print differently.
        expect(bytes.toString('base64url')).toBe(topicId);
        expect(topicId.startsWith('-')).toBe(false);
        ids.add(topicId);
      }
    }
    expect(ids.size).toBe(600);
  });
});
