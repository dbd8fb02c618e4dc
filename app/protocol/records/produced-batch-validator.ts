/**
 * The engine's ProducedBatchValidator port (app/core/log/produced-batch.ts), implemented by
 * Kafka's LogValidator (`log-validator.ts`): what a partition leader checks and patches in a
 * client's record batch before it reaches the log. The hosts create one with the codecs they
 * have (zstd compression comes from the host; every codec decompresses here).
 */
import type { BatchCompression, ProducedBatch, ProducedBatchInput, ProducedBatchRules, ProducedBatchValidator } from '../../core/log/produced-batch.js';
import { CompressionError, type CompressionCodecs, createCompressionCodecs } from './compression.js';
import { type LogValidatorConfig, validateRecords } from './log-validator.js';
import { encodeRecordBatch } from './record-batch.js';
import type { LogRecord } from '../../core/log/records.js';

function validatorConfig(rules: ProducedBatchRules): LogValidatorConfig {
  return {
    'compression.type': rules.compressionType,
    'max.message.bytes': rules.maxMessageBytes,
    'message.timestamp.type': rules.timestampType,
    'message.timestamp.before.max.ms': rules.timestampBeforeMaxMs,
    'message.timestamp.after.max.ms': rules.timestampAfterMaxMs,
    compacted: rules.compacted,
  };
}

export function createProducedBatchValidator(codecs: CompressionCodecs = createCompressionCodecs()): ProducedBatchValidator {
  return {
    producerBatch(records: readonly LogRecord[], compression: BatchCompression = 'none'): Uint8Array | string {
      try {
        return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records: [...records], sizeBytes: 0 }, { compression, codecs });
      } catch (e) {
        if (e instanceof CompressionError) return `The batch cannot be compressed with ${compression} here: ${e.message}`;
        throw e;
      }
    },
    validate(input: ProducedBatchInput, rules: ProducedBatchRules): ProducedBatch {
      const result = validateRecords(input, validatorConfig(rules), codecs);
      if (!result.ok) {
        // The protocol-only codes never come out of the validator; -1 has no name in the contract.
        const error = result.error === 'UNKNOWN_SERVER_ERROR' || result.error === 'CLUSTER_AUTHORIZATION_FAILED' ? 'INVALID_REQUEST' : result.error;
        return { ok: false, error, message: result.message, recordErrors: result.recordErrors };
      }
      const h = result.header;
      return {
        ok: true,
        bytes: result.batch,
        count: result.count,
        // Read through, never copied here: the records are decoded only if someone reads them.
        get records() {
          return result.records;
        },
        producer: h.producerId >= 0 ? { producerId: h.producerId, producerEpoch: h.producerEpoch, baseSequence: h.baseSequence } : null,
        transactional: h.isTransactional,
        logAppendTimeMs: result.logAppendTimeMs,
      };
    },
  };
}
