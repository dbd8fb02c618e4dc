/**
 * int64 offsets and timestamps from the wire as the engine's numbers. A value beyond 2^53 is no
 * offset a log of ours can hold; it becomes the largest safe integer (still out of range, so the
 * engine answers it as Kafka would: OFFSET_OUT_OF_RANGE, no record found).
 */
export function toOffset(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (value < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(value);
}
