/**
 * A pasted reassignment plan is read as kafka-reassign-partitions.sh reads it (the file, or its
 * list of partitions), with what is wrong said in words; the export is that file again.
 */
import { describe, expect, it } from 'vitest';
import { parsePlan, planJson } from './rehearsal.js';

describe('a pasted reassignment plan', () => {
  it('reads Kafka’s reassignment JSON or its partitions list, and writes the file back', () => {
    const file = '{"version":1,"partitions":[{"topic":"orders","partition":2,"replicas":[3,1],"log_dirs":["any","any"]}]}';
    expect(parsePlan(file)).toEqual({ partitions: [{ topic: 'orders', partition: 2, replicas: [3, 1] }] });
    expect(parsePlan('[{"topic":"orders","partition":0,"replicas":[1]}]')).toEqual({ partitions: [{ topic: 'orders', partition: 0, replicas: [1] }] });
    expect(JSON.parse(planJson([{ topic: 'orders', partition: 2, replicas: [3, 1] }]))).toEqual(JSON.parse(file));
  });

  it('says what is wrong: not JSON, no partitions, a partition without its replicas', () => {
    expect(parsePlan('{"version":1,')).toMatchObject({ problem: expect.stringMatching(/^Not JSON: /) });
    expect(parsePlan('{"version":1,"partitions":[]}')).toMatchObject({ problem: expect.stringContaining('reassignment JSON') });
    expect(parsePlan('{"partitions":[{"topic":"a","partition":0,"replicas":[1]},{"topic":"b","partition":1}]}')).toEqual({ problem: 'partitions[1] needs "topic" (a name), "partition" (a number) and "replicas" (broker ids).' });
  });
});
