/**
 * `clients.produce` on either driver: a producer of its own (app/kafka-client/client-producer.ts)
 * to the cluster's bootstrap servers, with the client id and credentials asked for. On the
 * cluster the console runs, its Kafka listeners; on an external cluster, the connection's
 * bootstrap servers and TLS settings with the asked credentials in place of the connection's own.
 */
import type { ClientProduceView, MethodParsedInput } from '../api/contract.js';
import { KafkaError } from '../api/errors.js';
import { produceAsClient } from '../kafka-client/client-producer.js';
import type { KafkaConnectionConfig } from '../kafka-client/config.js';

export async function clientProduce(base: Pick<KafkaConnectionConfig, 'bootstrapServers' | 'security' | 'tls'>, input: MethodParsedInput<'clients.produce'>): Promise<ClientProduceView> {
  if (base.bootstrapServers.length === 0) throw new KafkaError('BROKER_NOT_AVAILABLE', 'The cluster has no Kafka listener to connect to.');
  const tls = base.security === 'SSL' || base.security === 'SASL_SSL';
  const config: KafkaConnectionConfig = {
    bootstrapServers: base.bootstrapServers,
    security: input.sasl ? (tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : tls ? 'SSL' : 'PLAINTEXT',
    ...(input.sasl ? { sasl: { ...input.sasl } } : {}),
    ...(tls && base.tls ? { tls: base.tls } : {}),
    clientId: input.clientId,
    connectionTimeoutMs: 5_000,
  };
  return produceAsClient(config, {
    topic: input.topic,
    partition: input.partition,
    acks: input.acks === 'all' ? -1 : input.acks,
    records: input.records.map((r) => ({ key: r.key ?? null, value: r.value })),
    repeat: input.repeat ?? 1,
    maxRealMs: input.maxRealMs ?? 30_000,
  });
}
