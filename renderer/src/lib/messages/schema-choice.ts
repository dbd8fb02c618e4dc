/**
 * What the produce forms send as `records.produce`'s `schemas`: for the key and for the value, a
 * subject of the connection's Schema Registry, which of its versions encodes (the latest unless
 * one is chosen), and for a Protobuf schema which message (its full name; the file's first when
 * empty). And the version choices a subject offers, read from `schemas.list`. No DOM access.
 */
import type { SchemaSubjectView } from '../../../../app/api/contract.js';

export interface SchemaChoiceForm {
  /** '' sends the key (or value) as typed. */
  subject: string;
  version: number | 'latest';
  /** A Protobuf message's full name; '' for the file's first. */
  message: string;
}

export const emptySchemaChoice = (): SchemaChoiceForm => ({ subject: '', version: 'latest', message: '' });

export interface ProduceSchemaChoice {
  subject: string;
  version?: number;
  message?: string;
}

/** The contract's choice for one form's fields; undefined when no subject is named. */
export function schemaChoiceOf(form: SchemaChoiceForm | undefined): ProduceSchemaChoice | undefined {
  const subject = form?.subject.trim() ?? '';
  if (!form || subject === '') return undefined;
  const message = form.message.trim();
  return { subject, ...(form.version !== 'latest' ? { version: form.version } : {}), ...(message ? { message } : {}) };
}

/** `records.produce`'s `schemas` for a key and a value choice (neither named: nothing sent). */
export function schemasOf(key: SchemaChoiceForm | undefined, value: SchemaChoiceForm | undefined): { schemas?: { key?: ProduceSchemaChoice; value?: ProduceSchemaChoice } } {
  const k = schemaChoiceOf(key);
  const v = schemaChoiceOf(value);
  if (!k && !v) return {};
  return { schemas: { ...(k ? { key: k } : {}), ...(v ? { value: v } : {}) } };
}

// A type, not an interface: naive-ui's SelectOption takes it through its index signature.
export type VersionOption = {
  label: string;
  value: number | 'latest';
};

/**
 * The versions a subject can encode with, newest first after "latest" (soft-deleted ones are
 * left out: the registry does not serve them as a subject's version). Each says its schema id
 * and type, the id being what the record's bytes will carry.
 */
export function versionOptions(subject: SchemaSubjectView | undefined): VersionOption[] {
  const live = (subject?.versions ?? []).filter((v) => !v.deleted);
  const latest = live[live.length - 1];
  return [
    { label: latest ? `latest (v${latest.version}, id ${latest.id})` : 'latest', value: 'latest' },
    ...[...live].reverse().map((v) => ({ label: `v${v.version} · id ${v.id} · ${v.schemaType}`, value: v.version })),
  ];
}

/** The schema type the choice would encode with, when the subject is known. */
export function chosenType(subject: SchemaSubjectView | undefined, version: number | 'latest'): 'AVRO' | 'PROTOBUF' | 'JSON' | null {
  const live = (subject?.versions ?? []).filter((v) => !v.deleted);
  const v = version === 'latest' ? live[live.length - 1] : live.find((x) => x.version === version);
  return v?.schemaType ?? null;
}
