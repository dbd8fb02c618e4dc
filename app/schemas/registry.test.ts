/**
 * The registry's operations as Confluent's clients see them: ids, versions, compatibility per
 * level and format, deletes, settings, references, and a second registry replaying the same log.
 * The log here is an array (the port's contract: ordered records, read from an offset); the HTTP
 * tests in main/schema-registry run the same operations over a real cluster's `_schemas` topic.
 */
import { describe, expect, it } from 'vitest';
import { SchemaRegistry, type SchemasLog } from './registry.js';
import type { SchemasRecord } from './registry-state.js';
import { RegistryError } from './registry-errors.js';

function memoryLog(records: SchemasRecord[] = []): SchemasLog & { records: SchemasRecord[] } {
  return {
    records,
    async read(from) {
      const chunk = records.slice(from, from + 2);
      return { records: chunk, nextOffset: from + chunk.length, endOffset: records.length };
    },
    async append(more) {
      records.push(...more);
    },
  };
}

const avro = (fields: object[], name = 'Payment') => JSON.stringify({ type: 'record', name, namespace: 'shop', fields });
const v1 = avro([{ name: 'id', type: 'string' }]);
const v2 = avro([{ name: 'id', type: 'string' }, { name: 'amount', type: 'double', default: 0 }]);
const v3NoDefault = avro([{ name: 'id', type: 'string' }, { name: 'currency', type: 'string' }]);

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RegistryError) return e.code;
    throw e;
  }
  throw new Error('expected a RegistryError');
}

describe('SchemaRegistry', () => {
  it('gives one id per schema across subjects, the next version per subject, and the same id again for the same schema', async () => {
    const r = new SchemaRegistry(memoryLog());
    expect(await r.register('payments-value', { schema: v1 })).toEqual({ id: 1 });
    // The same schema spelled with other whitespace is the same registration.
    expect(await r.register('payments-value', { schema: JSON.stringify(JSON.parse(v1), null, 2) })).toEqual({ id: 1 });
    expect(await r.versions('payments-value')).toEqual([1]);
    expect(await r.register('refunds-value', { schema: v1 })).toEqual({ id: 1 });
    expect(await r.register('payments-value', { schema: v2 })).toEqual({ id: 2 });
    expect(await r.version('payments-value', 'latest')).toMatchObject({ subject: 'payments-value', version: 2, id: 2 });
    expect((await r.idUses(1)).map((u) => u.subject)).toEqual(['payments-value', 'refunds-value']);
    expect(await r.lookup('payments-value', { schema: v1 })).toMatchObject({ version: 1, id: 1 });
    expect(await code(r.lookup('payments-value', { schema: v3NoDefault }))).toBe(40403);
    expect(await code(r.lookup('nothing', { schema: v1 }))).toBe(40401);
  });

  it('refuses an incompatible Avro schema under BACKWARD with 409, and takes it under NONE', async () => {
    const r = new SchemaRegistry(memoryLog());
    await r.register('s', { schema: v1 });
    // A new field without a default: the new reader cannot fill it from old data.
    expect(await code(r.register('s', { schema: v3NoDefault }))).toBe(409);
    expect(await r.check('s', { schema: v3NoDefault })).toHaveLength(1);
    expect(await r.check('s', { schema: v2 })).toEqual([]);
    await r.setConfig('s', 'none');
    expect(await r.getConfig('s')).toEqual({ compatibilityLevel: 'NONE' });
    expect(await r.register('s', { schema: v3NoDefault })).toEqual({ id: 2 });
  });

  it('FORWARD asks the old reader to read the new data; FULL_TRANSITIVE asks both of every version', async () => {
    const r = new SchemaRegistry(memoryLog());
    await r.setConfig(null, 'FORWARD');
    await r.register('f', { schema: v2 });
    // Dropping `amount` (which has a default) is forward compatible: the old reader fills it.
    const dropped = avro([{ name: 'id', type: 'string' }]);
    expect(await r.check('f', { schema: dropped })).toEqual([]);
    // A field the old reader needs, without a default, disappearing is not.
    const r2 = new SchemaRegistry(memoryLog());
    await r2.setConfig(null, 'FORWARD');
    await r2.register('f', { schema: v3NoDefault });
    expect(await code(r2.register('f', { schema: v1 }))).toBe(409);

    const t = new SchemaRegistry(memoryLog());
    await t.setConfig('t', 'NONE');
    await t.register('t', { schema: v1 });
    await t.register('t', { schema: v3NoDefault });
    await t.setConfig('t', 'FULL_TRANSITIVE');
    // Compatible with the latest both ways, not with version 1 (currency has no default).
    const withBoth = avro([{ name: 'id', type: 'string' }, { name: 'currency', type: 'string', default: 'EUR' }]);
    expect(await r.check('none-yet', { schema: withBoth })).toEqual([]);
    await t.setConfig('t', 'FULL');
    expect(await t.check('t', { schema: withBoth })).toEqual([]);
    await t.setConfig('t', 'FULL_TRANSITIVE');
    expect(await t.check('t', { schema: withBoth })).toEqual([]);
    const noCurrencyDefault = avro([{ name: 'id', type: 'string' }, { name: 'currency', type: 'string' }, { name: 'x', type: 'int', default: 1 }]);
    await t.setConfig('t', 'BACKWARD');
    expect(await t.check('t', { schema: noCurrencyDefault })).toEqual([]);
    await t.setConfig('t', 'BACKWARD_TRANSITIVE');
    expect((await t.check('t', { schema: noCurrencyDefault })).join()).toContain('BACKWARD_TRANSITIVE against version 1:');
  });

  it('soft and permanent deletes with their error codes, and an id is never given again', async () => {
    const r = new SchemaRegistry(memoryLog());
    await r.register('s', { schema: v1 });
    await r.register('s', { schema: v2 });
    expect(await code(r.deleteVersion('s', '1', true))).toBe(40407);
    expect(await r.deleteVersion('s', '1')).toBe(1);
    expect(await code(r.deleteVersion('s', '1'))).toBe(40406);
    expect(await code(r.version('s', '1'))).toBe(40402);
    expect(await r.version('s', '1', true)).toMatchObject({ id: 1 });
    expect(await r.versions('s')).toEqual([2]);
    expect(await r.versions('s', true)).toEqual([1, 2]);
    expect(await r.deleteVersion('s', '1', true)).toBe(1);
    expect(await r.versions('s', true)).toEqual([2]);
    expect(await code(r.deleteSubject('s', true))).toBe(40405);
    expect(await r.deleteSubject('s')).toEqual([2]);
    expect(await code(r.deleteSubject('s'))).toBe(40404);
    expect(await r.subjects()).toEqual([]);
    expect(await r.subjects(true)).toEqual(['s']);
    expect(await r.deleteSubject('s', true)).toEqual([2]);
    expect(await code(r.versions('s'))).toBe(40401);
    // Ids 1 and 2 were used: a new schema gets 3, and the subject starts again at version 1.
    expect(await r.register('s', { schema: v3NoDefault })).toEqual({ id: 3 });
    expect(await r.versions('s')).toEqual([1]);
  });

  it('settings: invalid levels and modes, subject settings unset, READONLY refuses writes', async () => {
    const r = new SchemaRegistry(memoryLog());
    expect(await r.getConfig(null)).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect(await code(r.setConfig(null, 'SIDEWAYS'))).toBe(42203);
    expect(await code(r.getConfig('s'))).toBe(40408);
    expect(await r.getConfig('s', true)).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect(await code(r.setMode(null, 'IMPORTISH'))).toBe(42204);
    expect(await code(r.getMode('s'))).toBe(40409);
    await r.setMode('s', 'READONLY');
    expect(await code(r.register('s', { schema: v1 }))).toBe(42205);
    expect(await r.register('other', { schema: v1 })).toEqual({ id: 1 });
    expect(await r.deleteMode('s')).toEqual({ mode: 'READONLY' });
    expect(await r.register('s', { schema: v1 })).toEqual({ id: 1 });
    expect(await code(r.register('s', { schema: '{"type": "recordd"}' }))).toBe(42201);
    expect(await code(r.register('s', { schema: 'syntax = "proto3"; message {', schemaType: 'PROTOBUF' }))).toBe(42201);
    expect(await code(r.version('s', 'two'))).toBe(42202);
  });

  it('references: a schema built on another subject version, which cannot be deleted while used', async () => {
    const r = new SchemaRegistry(memoryLog());
    const money = JSON.stringify({ type: 'record', name: 'Money', namespace: 'shop', fields: [{ name: 'cents', type: 'long' }] });
    await r.register('money', { schema: money });
    const order = JSON.stringify({ type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'total', type: 'shop.Money' }] });
    expect(await code(r.register('orders-value', { schema: order }))).toBe(42201);
    const refs = [{ name: 'shop.Money', subject: 'money', version: 1 }];
    expect(await r.register('orders-value', { schema: order, references: refs })).toEqual({ id: 2 });
    expect(await r.referencedBy('money', '1')).toEqual([2]);
    expect(await code(r.deleteVersion('money', '1'))).toBe(42206);
    const parsed = await r.parsedById(2);
    const { payload } = parsed.encode({ total: { cents: 1250 } });
    expect(parsed.decode(payload)).toEqual({ total: { cents: 1250 } });
  });

  it('Protobuf: wire-alike scalar changes pass, a type change or a removed message is refused', async () => {
    const r = new SchemaRegistry(memoryLog());
    const proto = (body: string) => `syntax = "proto3";\npackage shop;\n${body}`;
    await r.register('p', { schemaType: 'PROTOBUF', schema: proto('message Order { int32 qty = 1; string id = 2; }\nmessage Line { string sku = 1; }') });
    expect(await r.check('p', { schemaType: 'PROTOBUF', schema: proto('message Order { int64 qty = 1; bytes id = 2; string note = 3; }\nmessage Line { string sku = 1; }') })).toEqual([]);
    const changed = await r.check('p', { schemaType: 'PROTOBUF', schema: proto('message Order { string qty = 1; string id = 2; }\nmessage Line { string sku = 1; }') });
    expect(changed.join()).toContain('field 1 changed type from int32 to string');
    const removed = await r.check('p', { schemaType: 'PROTOBUF', schema: proto('message Order { int32 qty = 1; string id = 2; }') });
    expect(removed.join()).toContain('message shop.Line was removed');
    expect((await r.check('p', { schema: v1 })).join()).toContain('Incompatible schema type');
  });

  it('JSON Schema: a new required property or a closed model that drops a property is refused', async () => {
    const r = new SchemaRegistry(memoryLog());
    const js = (o: object) => JSON.stringify({ type: 'object', ...o });
    await r.register('j', { schemaType: 'JSON', schema: js({ properties: { id: { type: 'string' }, n: { type: 'integer' } }, additionalProperties: false }) });
    // A new optional property in a closed model, integer widened to number: every old document still validates.
    expect(await r.check('j', { schemaType: 'JSON', schema: js({ properties: { id: { type: 'string' }, n: { type: 'number' }, note: { type: 'string' } }, additionalProperties: false }) })).toEqual([]);
    const required = await r.check('j', { schemaType: 'JSON', schema: js({ properties: { id: { type: 'string' }, n: { type: 'integer' } }, required: ['id'], additionalProperties: false }) });
    expect(required.join()).toContain('required property id was added');
    const dropped = await r.check('j', { schemaType: 'JSON', schema: js({ properties: { id: { type: 'string' } }, additionalProperties: false }) });
    expect(dropped.join()).toContain('property n was removed from a closed content model');
  });

  it('a second registry over the same log reads the same subjects, ids, settings and deletes', async () => {
    const log = memoryLog();
    const a = new SchemaRegistry(log);
    await a.register('x', { schema: v1 });
    await a.register('y', { schema: v2 });
    await a.setConfig('x', 'FULL');
    await a.deleteVersion('y', '1');
    const b = new SchemaRegistry(memoryLog(log.records));
    expect(await b.subjects()).toEqual(['x']);
    expect(await b.subjects(true)).toEqual(['x', 'y']);
    expect(await b.getConfig('x')).toEqual({ compatibilityLevel: 'FULL' });
    expect(await b.schemaById(2)).toEqual({ schema: JSON.stringify(JSON.parse(v2)) });
    // b writes next: it continues a's ids.
    expect(await b.register('z', { schema: v3NoDefault })).toEqual({ id: 3 });
    expect(await a.subjects()).toEqual(['x', 'z']);
  });

  describe('two registries writing at once (both decide before either record lands)', () => {
    /** Registries over one log whose first two appends wait until both writers have decided. */
    function racingLogs(): { log: (SchemasLog & { records: SchemasRecord[] })[]; records: SchemasRecord[] } {
      const records: SchemasRecord[] = [];
      let arrived = 0;
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const racing = (): SchemasLog & { records: SchemasRecord[] } => {
        const base = memoryLog(records);
        return {
          records,
          read: base.read,
          async append(more) {
            if (++arrived <= 2) {
              if (arrived === 2) release();
              await gate;
            }
            await base.append(more);
          },
        };
      };
      return { log: [racing(), racing()], records };
    }

    it('two schemas in two subjects get two ids, and a third registry agrees', async () => {
      const { log, records } = racingLogs();
      const [a, b] = [new SchemaRegistry(log[0]!), new SchemaRegistry(log[1]!)];
      const [ra, rb] = await Promise.all([a.register('x', { schema: v1 }), b.register('y', { schema: v3NoDefault })]);
      expect(ra.id).not.toBe(rb.id);
      const c = new SchemaRegistry(memoryLog(records));
      expect(JSON.parse((await c.schemaById(ra.id)).schema)).toEqual(JSON.parse(v1));
      expect(JSON.parse((await c.schemaById(rb.id)).schema)).toEqual(JSON.parse(v3NoDefault));
      expect(await c.idUses(ra.id)).toEqual([{ subject: 'x', version: 1 }]);
      expect(await c.idUses(rb.id)).toEqual([{ subject: 'y', version: 1 }]);
      // The writers see what the reader sees.
      expect((await a.version('y', '1')).id).toBe(rb.id);
      expect((await b.version('x', '1')).id).toBe(ra.id);
    });

    it('two schemas in one subject both stay, as versions 1 and 2 with their own ids', async () => {
      const { log, records } = racingLogs();
      const [a, b] = [new SchemaRegistry(log[0]!), new SchemaRegistry(log[1]!)];
      const [ra, rb] = await Promise.all([a.register('x', { schema: v1 }), b.register('x', { schema: v2 })]);
      expect(ra.id).not.toBe(rb.id);
      const c = new SchemaRegistry(memoryLog(records));
      expect(await c.versions('x')).toEqual([1, 2]);
      expect((await c.lookup('x', { schema: v1 })).id).toBe(ra.id);
      expect((await c.lookup('x', { schema: v2 })).id).toBe(rb.id);
    });
  });
});
