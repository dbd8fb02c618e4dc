/**
 * Where each broker's Kafka listener is (host and port), kept with the cluster: the host binds
 * the sockets and records the addresses here; they are saved in the metadata store's settings,
 * so a reopened cluster offers its clients the same bootstrap servers when the ports are free.
 *
 * Invariant: an address belongs to a member broker; removing the broker forgets it. What Metadata
 * advertises, what `cluster.describe` reports and what the host listens on are all read from here.
 */
import type { MetadataStore } from '../log/log-store.js';

export interface ListenerAddress {
  host: string;
  port: number;
}

const keyOf = (brokerId: number): string => `broker.${brokerId}.listener`;
const PATTERN = /^broker\.(\d+)\.listener$/;

export class ListenerRegistry {
  private readonly addresses = new Map<number, ListenerAddress>();

  constructor(private readonly store: MetadataStore) {
    for (const [key, value] of Object.entries(store.loadSettings())) {
      const id = PATTERN.exec(key)?.[1];
      const at = value.lastIndexOf(':');
      const port = Number(value.slice(at + 1));
      if (id !== undefined && at > 0 && Number.isInteger(port) && port > 0 && port < 65_536) this.addresses.set(Number(id), { host: value.slice(0, at), port });
    }
  }

  get(brokerId: number): ListenerAddress | null {
    return this.addresses.get(brokerId) ?? null;
  }

  all(): ReadonlyMap<number, ListenerAddress> {
    return this.addresses;
  }

  /** Record (or, with null, forget) a broker's listener address. */
  set(brokerId: number, address: ListenerAddress | null): void {
    const old = this.addresses.get(brokerId);
    if (address && old && old.host === address.host && old.port === address.port) return;
    if (address) this.addresses.set(brokerId, { ...address });
    else if (!old) return;
    else this.addresses.delete(brokerId);
    this.store.saveSetting(keyOf(brokerId), address ? `${address.host}:${address.port}` : null);
  }
}
