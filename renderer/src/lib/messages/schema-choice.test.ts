import { describe, expect, it } from 'vitest';
import type { SchemaSubjectView } from '../../../../app/api/contract.js';
import { chosenType, emptySchemaChoice, schemasOf, versionOptions } from './schema-choice.js';

const subject: SchemaSubjectView = {
  subject: 'payments-value',
  compatibility: null,
  mode: null,
  versions: [
    { version: 1, id: 1, schemaType: 'AVRO', schema: '{}', references: [], deleted: false },
    { version: 2, id: 4, schemaType: 'AVRO', schema: '{}', references: [], deleted: true },
    { version: 3, id: 7, schemaType: 'PROTOBUF', schema: 'syntax = "proto3";', references: [], deleted: false },
  ],
};

describe('schema choices of the produce forms', () => {
  it('sends a subject with its chosen version and Protobuf message, the latest when none is chosen, nothing without a subject', () => {
    expect(schemasOf(emptySchemaChoice(), { subject: '  ', version: 2, message: 'x' })).toEqual({});
    expect(schemasOf({ subject: 'k', version: 'latest', message: '' }, undefined)).toEqual({ schemas: { key: { subject: 'k' } } });
    expect(schemasOf(undefined, { subject: ' payments-value ', version: 1, message: ' shop.Payment ' })).toEqual({ schemas: { value: { subject: 'payments-value', version: 1, message: 'shop.Payment' } } });
  });

  it('offers "latest" then each live version newest first, with its id and type', () => {
    expect(versionOptions(subject)).toEqual([
      { label: 'latest (v3, id 7)', value: 'latest' },
      { label: 'v3 · id 7 · PROTOBUF', value: 3 },
      { label: 'v1 · id 1 · AVRO', value: 1 },
    ]);
    expect(versionOptions(undefined)).toEqual([{ label: 'latest', value: 'latest' }]);
    expect(chosenType(subject, 'latest')).toBe('PROTOBUF');
    expect(chosenType(subject, 1)).toBe('AVRO');
    expect(chosenType(subject, 2)).toBeNull();
  });
});
