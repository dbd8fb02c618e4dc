/** Kafka's ConfigSource and ConfigType numbers (DescribeConfigsResponse), from the catalogue's names. */
import type { ConfigSource } from '../../../core/configs/resolve.js';
import type { ConfigType } from '../../../core/configs/types.js';

export const CONFIG_SOURCE: Record<ConfigSource, number> = {
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
};

/** ConfigType (DescribeConfigs v3+): BOOLEAN 1, STRING 2, INT 3, SHORT 4, LONG 5, DOUBLE 6, LIST 7, CLASS 8, PASSWORD 9. */
export const CONFIG_TYPE: Record<ConfigType, number> = {
  boolean: 1,
  string: 2,
  int: 3,
  short: 4,
  long: 5,
  double: 6,
  list: 7,
};

/** Kafka's ConfigResource types this broker serves. */
export const RESOURCE_TYPE = { topic: 2, broker: 4 } as const;
