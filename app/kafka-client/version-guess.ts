/**
 * Kafka's release, guessed from a broker's ApiVersions answer: the newest release whose marker
 * the answer carries. ApiVersions names no release, so this is a lower bound ("3.1 or newer"),
 * from APIs and versions each release introduced (or, for 4.0, removed):
 *
 *   4.0  Fetch versions 0-3 removed (KIP-896): Fetch's lowest version is 4
 *   3.8  DescribeTopicPartitions (key 75, KIP-966)
 *   3.7  GetTelemetrySubscriptions (key 71, KIP-714)
 *   3.1  Fetch v13, topic ids in Fetch (KIP-516)
 *   2.8  DescribeCluster (key 60, KIP-700)
 *   2.4  Produce v8
 *   2.3  IncrementalAlterConfigs (key 44, KIP-339), or Fetch v11
 *   2.2  ElectLeaders (key 43, KIP-183 / KIP-460), or ListOffsets v5
 *   2.1  Fetch v10
 *   1.0  SaslAuthenticate (key 36, KIP-152)
 *
 * The version markers below 2.8 are the ones kafka-python infers a release from
 * (conn.py `_infer_broker_version_from_api_versions`), so a broker that advertises only part of
 * Kafka's APIs (ours does) is placed by what it does advertise.
 */

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export function guessKafkaVersion(ranges: readonly ApiVersionRange[]): string {
  const by = new Map(ranges.map((r) => [r.apiKey, r]));
  const fetch = by.get(1);
  if (fetch && fetch.minVersion >= 4) return '4.0 or newer';
  if (by.has(75)) return '3.8 or newer';
  if (by.has(71)) return '3.7 or newer';
  if (fetch && fetch.maxVersion >= 13) return '3.1 or newer';
  if (by.has(60)) return '2.8 or newer';
  const max = (key: number): number => by.get(key)?.maxVersion ?? -1;
  if (max(0) >= 8) return '2.4 or newer';
  if (by.has(44) || max(1) >= 11) return '2.3 or newer';
  if (by.has(43) || max(2) >= 5) return '2.2 or newer';
  if (max(1) >= 10) return '2.1 or newer';
  if (by.has(36)) return '1.0 or newer';
  return 'older than 1.0';
}
