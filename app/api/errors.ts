/**
 * Error codes of the public contract. Where Kafka has a name for an error we use Kafka's name
 * and number (apache/kafka `clients/.../common/protocol/Errors.java`); our own codes (no Kafka
 * equivalent) have no number. `retriable` follows Kafka's exception classes.
 */
export const KAFKA_ERRORS = {
  UNKNOWN_SERVER_ERROR: { code: -1, retriable: false },
  NONE: { code: 0, retriable: false },
  OFFSET_OUT_OF_RANGE: { code: 1, retriable: false },
  CORRUPT_MESSAGE: { code: 2, retriable: true },
  UNKNOWN_TOPIC_OR_PARTITION: { code: 3, retriable: true },
  LEADER_NOT_AVAILABLE: { code: 5, retriable: true },
  NOT_LEADER_OR_FOLLOWER: { code: 6, retriable: true },
  REQUEST_TIMED_OUT: { code: 7, retriable: true },
  BROKER_NOT_AVAILABLE: { code: 8, retriable: false },
  REPLICA_NOT_AVAILABLE: { code: 9, retriable: true },
  MESSAGE_TOO_LARGE: { code: 10, retriable: false },
  OFFSET_METADATA_TOO_LARGE: { code: 12, retriable: false },
  NETWORK_EXCEPTION: { code: 13, retriable: true },
  COORDINATOR_LOAD_IN_PROGRESS: { code: 14, retriable: true },
  COORDINATOR_NOT_AVAILABLE: { code: 15, retriable: true },
  NOT_COORDINATOR: { code: 16, retriable: true },
  INVALID_TOPIC_EXCEPTION: { code: 17, retriable: false },
  RECORD_LIST_TOO_LARGE: { code: 18, retriable: false },
  NOT_ENOUGH_REPLICAS: { code: 19, retriable: true },
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: { code: 20, retriable: true },
  INVALID_REQUIRED_ACKS: { code: 21, retriable: false },
  ILLEGAL_GENERATION: { code: 22, retriable: false },
  INCONSISTENT_GROUP_PROTOCOL: { code: 23, retriable: false },
  INVALID_GROUP_ID: { code: 24, retriable: false },
  UNKNOWN_MEMBER_ID: { code: 25, retriable: false },
  INVALID_SESSION_TIMEOUT: { code: 26, retriable: false },
  REBALANCE_IN_PROGRESS: { code: 27, retriable: false },
  INVALID_COMMIT_OFFSET_SIZE: { code: 28, retriable: false },
  TOPIC_AUTHORIZATION_FAILED: { code: 29, retriable: false },
  GROUP_AUTHORIZATION_FAILED: { code: 30, retriable: false },
  CLUSTER_AUTHORIZATION_FAILED: { code: 31, retriable: false },
  INVALID_TIMESTAMP: { code: 32, retriable: false },
  UNSUPPORTED_SASL_MECHANISM: { code: 33, retriable: false },
  ILLEGAL_SASL_STATE: { code: 34, retriable: false },
  UNSUPPORTED_VERSION: { code: 35, retriable: false },
  TOPIC_ALREADY_EXISTS: { code: 36, retriable: false },
  INVALID_PARTITIONS: { code: 37, retriable: false },
  INVALID_REPLICATION_FACTOR: { code: 38, retriable: false },
  INVALID_REPLICA_ASSIGNMENT: { code: 39, retriable: false },
  INVALID_CONFIG: { code: 40, retriable: false },
  NOT_CONTROLLER: { code: 41, retriable: true },
  INVALID_REQUEST: { code: 42, retriable: false },
  UNSUPPORTED_FOR_MESSAGE_FORMAT: { code: 43, retriable: false },
  POLICY_VIOLATION: { code: 44, retriable: false },
  OUT_OF_ORDER_SEQUENCE_NUMBER: { code: 45, retriable: false },
  DUPLICATE_SEQUENCE_NUMBER: { code: 46, retriable: false },
  INVALID_PRODUCER_EPOCH: { code: 47, retriable: false },
  INVALID_TXN_STATE: { code: 48, retriable: false },
  INVALID_PRODUCER_ID_MAPPING: { code: 49, retriable: false },
  INVALID_TRANSACTION_TIMEOUT: { code: 50, retriable: false },
  CONCURRENT_TRANSACTIONS: { code: 51, retriable: true },
  TRANSACTION_COORDINATOR_FENCED: { code: 52, retriable: false },
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: { code: 53, retriable: false },
  SECURITY_DISABLED: { code: 54, retriable: false },
  OPERATION_NOT_ATTEMPTED: { code: 55, retriable: false },
  KAFKA_STORAGE_ERROR: { code: 56, retriable: true },
  SASL_AUTHENTICATION_FAILED: { code: 58, retriable: false },
  UNKNOWN_PRODUCER_ID: { code: 59, retriable: false },
  REASSIGNMENT_IN_PROGRESS: { code: 60, retriable: false },
  NON_EMPTY_GROUP: { code: 68, retriable: false },
  GROUP_ID_NOT_FOUND: { code: 69, retriable: false },
  FETCH_SESSION_ID_NOT_FOUND: { code: 70, retriable: true },
  INVALID_FETCH_SESSION_EPOCH: { code: 71, retriable: true },
  TOPIC_DELETION_DISABLED: { code: 73, retriable: false },
  FENCED_LEADER_EPOCH: { code: 74, retriable: true },
  UNKNOWN_LEADER_EPOCH: { code: 75, retriable: true },
  UNSUPPORTED_COMPRESSION_TYPE: { code: 76, retriable: false },
  STALE_BROKER_EPOCH: { code: 77, retriable: false },
  OFFSET_NOT_AVAILABLE: { code: 78, retriable: true },
  MEMBER_ID_REQUIRED: { code: 79, retriable: false },
  PREFERRED_LEADER_NOT_AVAILABLE: { code: 80, retriable: true },
  GROUP_MAX_SIZE_REACHED: { code: 81, retriable: false },
  FENCED_INSTANCE_ID: { code: 82, retriable: false },
  ELIGIBLE_LEADERS_NOT_AVAILABLE: { code: 83, retriable: true },
  ELECTION_NOT_NEEDED: { code: 84, retriable: false },
  NO_REASSIGNMENT_IN_PROGRESS: { code: 85, retriable: false },
  GROUP_SUBSCRIBED_TO_TOPIC: { code: 86, retriable: false },
  INVALID_RECORD: { code: 87, retriable: false },
  UNSTABLE_OFFSET_COMMIT: { code: 88, retriable: true },
  THROTTLING_QUOTA_EXCEEDED: { code: 89, retriable: true },
  PRODUCER_FENCED: { code: 90, retriable: false },
  RESOURCE_NOT_FOUND: { code: 91, retriable: false },
  DUPLICATE_RESOURCE: { code: 92, retriable: false },
  UNACCEPTABLE_CREDENTIAL: { code: 93, retriable: false },
  INVALID_UPDATE_VERSION: { code: 95, retriable: false },
  UNKNOWN_TOPIC_ID: { code: 100, retriable: true },
  DUPLICATE_BROKER_REGISTRATION: { code: 101, retriable: false },
  TRANSACTIONAL_ID_NOT_FOUND: { code: 105, retriable: false },
  INELIGIBLE_REPLICA: { code: 107, retriable: false },
  NEW_LEADER_ELECTED: { code: 108, retriable: false },
  TRANSACTION_ABORTABLE: { code: 120, retriable: false },
} as const satisfies Record<string, { code: number; retriable: boolean }>;

/** A Kafka error name such as `NOT_ENOUGH_REPLICAS`. */
export type KafkaErrorName = keyof typeof KAFKA_ERRORS;

/** Codes that Kafka has no name for: requests that are not valid for this product. */
export const PRODUCT_ERRORS = {
  /** Input failed its schema (wrong type, missing field). */
  INVALID_INPUT: { retriable: false },
  /** A broker id that is not a member of the cluster. */
  BROKER_NOT_FOUND: { retriable: false },
  /** The operation is not possible in the broker's current state (e.g. start a running broker). */
  INVALID_STATE: { retriable: false },
  /** The caller cancelled the operation before it finished (e.g. `balance.cancel`). */
  CANCELLED: { retriable: false },
  /**
   * The connection cannot do this: a real Kafka cluster has no fault drills, no per-follower log
   * end offsets, no controller timeline. `details` names the capability and the reason
   * (`UnsupportedDetailsView`).
   */
  UNSUPPORTED_FOR_CONNECTION: { retriable: false },
  /** No connection has that id (it was deleted, or never saved). */
  CONNECTION_NOT_FOUND: { retriable: false },
  /** A bug in Replica Studio; logged with its stack, never shown as "invalid input". */
  INTERNAL: { retriable: false },
} as const;

export type ProductErrorName = keyof typeof PRODUCT_ERRORS;

/** Every error code the contract can return. */
export type ErrorCode = KafkaErrorName | ProductErrorName;

/** The serialisable error inside a failed result envelope. */
export interface ErrorView {
  code: ErrorCode;
  message: string;
  retriable: boolean;
  details?: unknown;
}

/** Whether `code` is retriable, per Kafka's exception classes. */
export function isRetriable(code: ErrorCode): boolean {
  if (code in KAFKA_ERRORS) return KAFKA_ERRORS[code as KafkaErrorName].retriable;
  return PRODUCT_ERRORS[code as ProductErrorName].retriable;
}

/** The Kafka error name of a wire code, or undefined for a code this table does not name. */
export function kafkaErrorName(code: number): KafkaErrorName | undefined {
  for (const [name, e] of Object.entries(KAFKA_ERRORS)) if (e.code === code) return name as KafkaErrorName;
  return undefined;
}

/** Kafka's numeric code for a Kafka error name (undefined for product-only codes). */
export function kafkaErrorNumber(code: ErrorCode): number | undefined {
  return code in KAFKA_ERRORS ? KAFKA_ERRORS[code as KafkaErrorName].code : undefined;
}

/**
 * The one exception type the engine throws for expected failures. The service turns it into an
 * error envelope; anything else is INTERNAL.
 */
export class KafkaError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'KafkaError';
    this.code = code;
    this.details = details;
  }
  toView(): ErrorView {
    const view: ErrorView = { code: this.code, message: this.message, retriable: isRetriable(this.code) };
    if (this.details !== undefined) view.details = this.details;
    return view;
  }
}
