/**
 * `clients.beginTransaction`, `clients.endTransaction`, `clients.crash` and `clients.fetch` on
 * either driver: transactional producers of their own (app/kafka-client/txn-client.ts) kept by
 * name between calls, and a consumer's Fetch. On the cluster the console runs they connect to its
 * Kafka listeners; on an external cluster, to the connection's bootstrap servers with its
 * settings. A producer lives from its first `beginTransaction` until its transaction ends or it
 * crashes, so a drill can hold a transaction open across steps; at most MAX_CLIENTS live at once.
 */
import type { ClientFetchView, ClientTransactionView, MethodParsedInput } from '../api/contract.js';
import { KafkaError } from '../api/errors.js';
import type { KafkaConnectionConfig } from '../kafka-client/config.js';
import { fetchAsClient, TransactionalClient, type TxnClientOutcome } from '../kafka-client/txn-client.js';

const MAX_CLIENTS = 32;

type Base = Pick<KafkaConnectionConfig, 'bootstrapServers' | 'security' | 'sasl' | 'tls'>;
export type ClientTxnMethods = {
  'clients.beginTransaction': (input: MethodParsedInput<'clients.beginTransaction'>) => Promise<ClientTransactionView>;
  'clients.endTransaction': (input: MethodParsedInput<'clients.endTransaction'>) => Promise<ClientTransactionView>;
  'clients.crash': (input: MethodParsedInput<'clients.crash'>) => ClientTransactionView;
  'clients.fetch': (input: MethodParsedInput<'clients.fetch'>) => Promise<ClientFetchView>;
};

function configOf(base: Base): KafkaConnectionConfig {
  if (base.bootstrapServers.length === 0) throw new KafkaError('BROKER_NOT_AVAILABLE', 'The cluster has no Kafka listener to connect to.');
  return { ...base, connectionTimeoutMs: 5_000 };
}

/** The methods over `base()`, the bootstrap servers and settings at the time of each call. */
export function clientTxnMethods(base: () => Base): ClientTxnMethods {
  const clients = new Map<string, TransactionalClient>();
  const view = (c: TransactionalClient, o: TxnClientOutcome): ClientTransactionView => ({ name: c.name, transactionalId: c.transactionalId, ...o });
  const running = (name: string): TransactionalClient => {
    const c = clients.get(name);
    if (!c) throw new KafkaError('INVALID_STATE', `No transactional producer named ${JSON.stringify(name)} is running: begin a transaction first.`);
    return c;
  };
  return {
    'clients.beginTransaction': async ({ name, transactionalId, transactionTimeoutMs, records }) => {
      let c = clients.get(name);
      if (c && c.transactionalId !== transactionalId) throw new KafkaError('INVALID_REQUEST', `Producer ${JSON.stringify(name)} runs with transactional.id ${JSON.stringify(c.transactionalId)}, not ${JSON.stringify(transactionalId)}.`);
      if (!c) {
        if (clients.size >= MAX_CLIENTS) throw new KafkaError('INVALID_STATE', `${MAX_CLIENTS} transactional producers are running: end or crash one first.`);
        c = new TransactionalClient(name, transactionalId, configOf(base()), transactionTimeoutMs);
        clients.set(name, c);
      }
      const started = c;
      try {
        const o = await started.begin(records.map((r) => ({ topic: r.topic, partition: r.partition, key: r.key ?? null, value: r.value })));
        // A producer refused with nothing open (fenced, unauthorized) is of no further use.
        if (o.errorCode !== 'NONE' && !o.open) {
          clients.delete(name);
          await started.close();
        }
        return view(started, o);
      } catch (e) {
        clients.delete(name);
        await started.close();
        throw e;
      }
    },
    'clients.endTransaction': async ({ name, commit }) => {
      const c = running(name);
      clients.delete(name);
      return view(c, await c.end(commit));
    },
    'clients.crash': ({ name }) => {
      const c = running(name);
      clients.delete(name);
      return view(c, c.crash());
    },
    'clients.fetch': ({ topic, partition, offset, isolation, clientId }) =>
      fetchAsClient({ ...configOf(base()), ...(clientId ? { clientId } : {}) }, { topic, partition, offset, readCommitted: isolation === 'read_committed' }),
  };
}
