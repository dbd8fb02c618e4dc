/**
 * Emits one TypeScript module per message: its types, a reader and a writer covering every
 * version in validVersions, the Kafka way (one function per struct, branching on `version`):
 *
 *   field present in version v        v ∈ versions (already intersected with the parent's)
 *   positional                        present and not tagged in v; wire order = file order
 *   tagged                            v ∈ taggedVersions: only in the struct's tagged section,
 *                                     written in ascending tag order when not the default
 *   compact (uvarint length+1) forms  v ∈ the message's flexibleVersions, unless the field
 *                                     overrides it (RequestHeader.ClientId: never)
 *   nullable                          v ∈ nullableVersions; otherwise null is refused both ways
 *   absent in v                       reads as the default; writing a non-default value of a
 *                                     non-ignorable field throws (UnsupportedVersionException)
 *
 * Defaults: the field's `default` (strings like "-1", "0x7fffffff", "null", "true", or JSON
 * numbers), else 0, false, "", empty bytes, [], the zero uuid, null records, a default struct.
 */
import { type Field, type Message, type Primitive, type Range, intersect, isEmpty } from './schema.js';

const NUMBER_TYPES = new Set<Primitive>(['int8', 'int16', 'uint16', 'int32', 'uint32', 'float64']);

export function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The emitter for one message; `lines` collects the module's code. */
class MessageEmitter {
  private readonly out: string[] = [];
  private readonly runtime = new Set<string>(['Reader', 'Writer', 'Init']);
  /** Every struct, with the versions in which it occurs (its field's). */
  private readonly structs: { name: string; fields: Field[]; within: Range }[] = [];

  constructor(private readonly m: Message) {
    const collect = (fields: Field[]): void => {
      for (const f of fields) {
        if (!f.struct) continue;
        // A common struct named by several fields is emitted once, for all of their versions.
        const seen = this.structs.find((s) => s.name === f.struct!.name);
        if (seen) {
          seen.within = { lo: Math.min(seen.within.lo, f.versions.lo), hi: Math.max(seen.within.hi, f.versions.hi) };
          continue;
        }
        this.structs.push({ ...f.struct, within: f.versions });
        collect(f.struct.fields);
      }
    };
    collect(m.fields);
  }

  private typeName(struct: string): string {
    return `${this.m.name}${struct}`;
  }

  /**
   * A boolean expression over `version` for `range`, knowing that `version` already lies in
   * `within` (validVersions at the top, the enclosing field's versions in a struct).
   */
  private cond(range: Range, within: Range = this.m.valid): string {
    const r = intersect(range, within);
    if (isEmpty(r)) return 'false';
    const parts: string[] = [];
    if (r.lo > within.lo) parts.push(`version >= ${r.lo}`);
    if (r.hi < within.hi) parts.push(`version <= ${r.hi}`);
    return parts.length ? parts.join(' && ') : 'true';
  }

  private get hasFlexible(): boolean {
    return !isEmpty(intersect(this.m.flexible, this.m.valid));
  }

  private compact(f: Field): string {
    if (f.flexibleOverride) return this.cond(f.flexibleOverride, f.versions);
    return this.hasFlexible ? 'flexible' : 'false';
  }

  private positional(f: Field): Range {
    return isEmpty(f.tagged) ? f.versions : { lo: f.versions.lo, hi: f.tagged.lo - 1 };
  }

  private isNullableType(f: Field): boolean {
    return !isEmpty(f.nullable) || f.default === 'null' || (f.primitive === 'records' && !f.array);
  }

  private elemType(f: Field): string {
    if (f.struct) return this.typeName(f.struct.name);
    switch (f.primitive!) {
      case 'bool':
        return 'boolean';
      case 'int64':
        return 'bigint';
      case 'uuid':
      case 'string':
        return 'string';
      case 'bytes':
      case 'records':
        return 'Uint8Array';
      default:
        return 'number';
    }
  }

  private tsType(f: Field): string {
    const base = f.array ? `${this.elemType(f)}[]` : this.elemType(f);
    return this.isNullableType(f) ? `${base} | null` : base;
  }

  private defaultLiteral(f: Field): string {
    const d = f.default;
    if (d === 'null') return 'null';
    if (f.array) return '[]';
    if (f.struct) return `default${this.typeName(f.struct.name)}()`;
    const p = f.primitive!;
    if (NUMBER_TYPES.has(p)) return String(d === undefined ? 0 : Number(d));
    switch (p) {
      case 'bool':
        return d === 'true' ? 'true' : 'false';
      case 'int64':
        return `${d === undefined ? 0n : BigInt(d)}n`;
      case 'uuid':
        this.runtime.add('ZERO_UUID');
        return 'ZERO_UUID';
      case 'string':
        return JSON.stringify(d ?? '');
      case 'bytes':
        this.runtime.add('EMPTY_BYTES');
        return 'EMPTY_BYTES';
      default:
        return 'null'; // records
    }
  }

  /** Whether the (defined) value `x` equals the field's default. */
  private isDefault(f: Field, x: string): string {
    const d = this.defaultLiteral(f);
    if (d === 'null') return `${x} === null`;
    if (f.array || f.primitive === 'bytes') return `${x} !== null && ${x}.length === 0`;
    if (f.struct) return `${x} !== null && isDefault${this.typeName(f.struct.name)}(${x})`;
    return `${x} === ${d}`;
  }

  // ---- reading ------------------------------------------------------------------------------

  private readScalar(f: Field, r: string, elem: boolean): string {
    const nullable = elem ? 'false' : this.cond(f.nullable, f.versions);
    const c = this.compact(f);
    const pick = (nullForm: string, plainForm: string): string =>
      nullable === 'true' ? nullForm : nullable === 'false' ? plainForm : `(${nullable} ? ${nullForm} : ${plainForm})`;
    if (f.struct) {
      const read = `read${this.typeName(f.struct.name)}(${r}, version)`;
      return pick(`(${r}.int8() < 0 ? null : ${read})`, read);
    }
    const p = f.primitive!;
    switch (p) {
      case 'string':
        return pick(`${r}.nullableString(${c})`, `${r}.string(${c}, '${f.name}')`);
      case 'bytes':
      case 'records':
        return pick(`${r}.nullableBytes(${c})`, `${r}.bytes(${c}, '${f.name}')`);
      default:
        return `${r}.${p}()`;
    }
  }

  private readValue(f: Field, r: string): string {
    if (!f.array) return this.readScalar(f, r, false);
    const c = this.compact(f);
    const elem = `(e) => ${this.readScalar(f, 'e', true)}`;
    const nullable = this.cond(f.nullable, f.versions);
    const plain = `${r}.array(${c}, ${elem}, '${f.name}')`;
    const nulled = `${r}.nullableArray(${c}, ${elem})`;
    return nullable === 'true' ? nulled : nullable === 'false' ? plain : `(${nullable} ? ${nulled} : ${plain})`;
  }

  private emitReader(typeName: string, fields: Field[], top: boolean, ctx: Range): void {
    const o: string[] = [];
    const signature = `${top ? 'export ' : ''}function read${typeName}(r: Reader, version: number): ${typeName} {`;
    if (top) o.push(`  checkVersion(version);`);
    const tagged = fields.filter((f) => !isEmpty(f.tagged)).sort((a, b) => a.tag! - b.tag!);
    if (this.hasFlexible) o.push(`  const flexible = version >= ${this.m.flexible.lo};`);
    for (const f of fields) {
      const cond = this.cond(this.positional(f), ctx);
      const mutable = cond !== 'true' || !isEmpty(f.tagged);
      if (!mutable) {
        o.push(`  const ${f.prop} = ${this.readValue(f, 'r')};`);
      } else {
        o.push(`  let ${f.prop}: ${this.tsType(f)} = ${this.defaultLiteral(f)};`);
        if (cond !== 'false') o.push(`  if (${cond}) ${f.prop} = ${this.readValue(f, 'r')};`);
      }
    }
    if (this.hasFlexible) {
      if (tagged.length === 0) {
        o.push(`  if (flexible) r.skipTaggedFields();`);
      } else {
        o.push(`  if (flexible) {`, `    r.taggedFields((tag, t) => {`, `      switch (tag) {`);
        for (const f of tagged) {
          o.push(`        case ${f.tag}:`);
          const cond = this.cond(f.tagged, ctx);
          if (cond !== 'true') o.push(`          if (!(${cond})) return false;`);
          o.push(`          ${f.prop} = ${this.readValue(f, 't')};`, `          return true;`);
        }
        o.push(`        default:`, `          return false;`, `      }`, `    });`, `  }`);
      }
    }
    o.push(`  return { ${fields.map((f) => f.prop).join(', ')} };`, `}`, ``);
    this.pushFunction(signature, o);
  }

  /** Appends a function, naming its `version` parameter `_version` where the body ignores it. */
  private pushFunction(signature: string, body: string[]): void {
    const uses = body.some((line) => /\bversion\b/.test(line));
    this.out.push(uses ? signature : signature.replace('version: number', '_version: number'), ...body);
  }

  // ---- writing ------------------------------------------------------------------------------

  private writeScalar(f: Field, w: string, x: string, elem: boolean): string {
    const nullable = elem ? 'false' : this.cond(f.nullable, f.versions);
    const c = this.compact(f);
    if (f.struct) {
      const write = `write${this.typeName(f.struct.name)}(${w}, version, ${x})`;
      if (nullable === 'false') return `${write};`;
      // `x` is an expression TypeScript does not narrow by the null test: assert it on the non-null branch.
      const nulled = `if (${x} === null) ${w}.int8(-1); else { ${w}.int8(1); write${this.typeName(f.struct.name)}(${w}, version, ${x}!); }`;
      if (nullable === 'true') return nulled;
      return `if (${nullable}) { ${nulled} } else { ${write}; }`;
    }
    const p = f.primitive!;
    const pick = (nullForm: string, plainForm: string): string =>
      nullable === 'true' ? `${nullForm};` : nullable === 'false' ? `${plainForm};` : `if (${nullable}) ${nullForm}; else ${plainForm};`;
    switch (p) {
      case 'string':
        return pick(`${w}.nullableString(${x}, ${c})`, `${w}.string(${x}, ${c}, '${f.name}')`);
      case 'bytes':
      case 'records':
        return pick(`${w}.nullableBytes(${x}, ${c})`, `${w}.bytes(${x}, ${c}, '${f.name}')`);
      default:
        return `${w}.${p}(${x});`;
    }
  }

  private writeValue(f: Field, w: string, x: string): string {
    if (!f.array) return this.writeScalar(f, w, x, false);
    const c = this.compact(f);
    const elem = `(w, e) => { ${this.writeScalar(f, 'w', 'e', true)} }`;
    const nullable = this.cond(f.nullable, f.versions);
    const plain = `${w}.array(${x}, ${c}, ${elem}, '${f.name}');`;
    const nulled = `${w}.nullableArray(${x}, ${c}, ${elem});`;
    return nullable === 'true' ? nulled : nullable === 'false' ? plain : `if (${nullable}) ${nulled} else ${plain}`;
  }

  /** The value to write for `v.prop`: what was given, or the default. */
  private given(f: Field): string {
    if (f.struct && !f.array && f.default !== 'null') return `(v.${f.prop} ?? {})`;
    return `(v.${f.prop} === undefined ? ${this.defaultLiteral(f)} : v.${f.prop})`;
  }

  private emitWriter(typeName: string, fields: Field[], top: boolean, ctx: Range): void {
    const o: string[] = [];
    const signature = `${top ? 'export ' : ''}function write${typeName}(w: Writer, version: number, v: Init<${typeName}>): void {`;
    if (top) o.push(`  checkVersion(version);`);
    if (this.hasFlexible) o.push(`  const flexible = version >= ${this.m.flexible.lo};`);
    for (const f of fields) {
      const cond = this.cond(this.positional(f), ctx);
      const write = this.writeValue(f, 'w', this.given(f));
      const present = this.cond(f.versions, ctx);
      const checked = !f.ignorable && present !== 'true';
      if (cond === 'true') {
        o.push(`  ${write}`);
      } else if (cond !== 'false') {
        // Not tagged anywhere: absent exactly where not positional, so a plain else will do.
        const other = !checked ? '' : isEmpty(f.tagged) ? ` else ${this.absentCheck(f)}` : ` else if (!(${present})) ${this.absentCheck(f)}`;
        o.push(`  if (${cond}) {`, `    ${write}`, `  }${other}`);
      } else if (checked) {
        o.push(present === 'false' ? `  ${this.absentCheck(f)}` : `  if (!(${present})) ${this.absentCheck(f)}`);
      }
    }
    if (this.hasFlexible) {
      const tagged = fields.filter((f) => !isEmpty(f.tagged)).sort((a, b) => a.tag! - b.tag!);
      if (tagged.length === 0) {
        o.push(`  if (flexible) w.uvarint(0);`);
      } else {
        o.push(`  if (flexible) {`);
        for (const f of tagged) {
          const x = `v.${f.prop}`;
          const when = this.cond(f.tagged, ctx);
          o.push(`    const tag${f.tag} = ${when === 'true' ? '' : `${when} && `}${x} !== undefined && !(${this.isDefault(f, x)});`);
        }
        o.push(`    w.uvarint(${tagged.map((f) => `(tag${f.tag} ? 1 : 0)`).join(' + ')});`);
        for (const f of tagged) {
          o.push(`    if (tag${f.tag}) {`, `      const t = new Writer(64);`);
          o.push(`      ${this.writeValue(f, 't', `v.${f.prop}!`)}`, `      w.taggedField(${f.tag}, t);`, `    }`);
        }
        o.push(`  }`);
      }
    }
    o.push(`}`, ``);
    this.pushFunction(signature, o);
  }

  private absentCheck(f: Field): string {
    this.runtime.add('UnsupportedVersionError');
    const x = `v.${f.prop}`;
    return (
      `if (${x} !== undefined && !(${this.isDefault(f, x)})) ` +
      `throw new UnsupportedVersionError(\`Attempted to write a non-default ${f.name} at version \${version}\`);`
    );
  }

  // ---- structs ------------------------------------------------------------------------------

  private emitInterface(typeName: string, fields: Field[]): void {
    this.out.push(`export interface ${typeName} {`);
    for (const f of fields) this.out.push(`  ${f.prop}: ${this.tsType(f)};`);
    this.out.push(`}`, ``);
  }

  private emitDefaults(typeName: string, fields: Field[]): void {
    const o = this.out;
    o.push(`function default${typeName}(): ${typeName} {`);
    o.push(`  return { ${fields.map((f) => `${f.prop}: ${this.defaultLiteral(f)}`).join(', ')} };`, `}`, ``);
    o.push(`function isDefault${typeName}(v: Init<${typeName}>): boolean {`);
    const checks = fields.map((f) => `(v.${f.prop} === undefined || ${this.isDefault(f, `v.${f.prop}`)})`);
    o.push(`  return ${checks.length ? checks.join(' &&\n    ') : 'true'};`, `}`, ``);
  }

  emit(): string {
    const m = this.m;
    const body = this.out;
    this.emitInterface(m.name, m.fields);
    for (const s of this.structs) this.emitInterface(this.typeName(s.name), s.fields);
    const { lo, hi } = m.valid;
    body.push(`/** The versions this message has: ${lo} to ${hi}. */`);
    body.push(`export const ${m.name}Versions = { lowest: ${lo}, highest: ${hi}, flexibleFrom: ${this.hasFlexible ? m.flexible.lo : 'null'} } as const;`, ``);
    body.push(`function checkVersion(version: number): void {`);
    body.push(`  if (!(version >= ${lo} && version <= ${hi})) throw new UnsupportedVersionError(\`${m.name} has no version \${version}\`);`, `}`, ``);
    this.runtime.add('UnsupportedVersionError');
    this.emitReader(m.name, m.fields, true, m.valid);
    this.emitWriter(m.name, m.fields, true, m.valid);
    const nonArrayStructs = new Set<string>();
    const walk = (fields: Field[]): void => {
      for (const f of fields) {
        // A nullable struct defaulting to null (DescribeTopicPartitions' Cursor) never needs its defaults.
        if (f.struct && !f.array && !(f.default === 'null' && f.tag === null)) nonArrayStructs.add(f.struct.name);
        if (f.struct) walk(f.struct.fields);
      }
    };
    walk(m.fields);
    for (const s of this.structs) {
      const t = this.typeName(s.name);
      this.emitReader(t, s.fields, false, s.within);
      this.emitWriter(t, s.fields, false, s.within);
      if (nonArrayStructs.has(s.name)) this.emitDefaults(t, s.fields);
    }
    const imports = [...this.runtime].sort((a, b) => a.localeCompare(b));
    const typeOnly = new Set(['Init']);
    const header = [
      `// Generated by scripts/gen-protocol.ts from app/protocol/messages/${m.file}: do not edit.`,
      `// Regenerate with \`npm run gen:protocol\`; a test fails while this file is stale.`,
      `import { ${imports.map((i) => (typeOnly.has(i) ? `type ${i}` : i)).join(', ')} } from '../runtime/index.js';`,
      ``,
    ];
    return [...header, ...body].join('\n');
  }
}

export function emitMessage(m: Message): string {
  return new MessageEmitter(m).emit();
}
