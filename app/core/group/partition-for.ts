/**
 * Which `__consumer_offsets` partition holds a group: Kafka's
 * `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions` (GroupMetadataManager.partitionFor),
 * so a group lands on the same partition here as on a real cluster with the same partition count.
 *
 * `hashCode` is Java's String.hashCode: s[0]·31^(n−1) + … + s[n−1] over UTF-16 code units, in
 * wrapping 32-bit arithmetic; `Utils.abs` is Math.abs except that Integer.MIN_VALUE maps to 0.
 */

/** Java's `String.hashCode()`, as a signed 32-bit integer. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs`: never negative, Integer.MIN_VALUE becomes 0. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** The partition of `__consumer_offsets` that holds `groupId`'s offsets and metadata. */
export function offsetsPartitionFor(groupId: string, partitionCount: number): number {
  return kafkaAbs(javaStringHashCode(groupId)) % partitionCount;
}
