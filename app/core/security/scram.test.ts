import { describe, expect, it } from 'vitest';
import { alterScramCredentials, describeScramCredentials, type ScramCredential, type ScramUpsertion } from './scram.js';

const up = (name: string, iterations = 4096, mechanism: ScramUpsertion['mechanism'] = 'SCRAM-SHA-256'): ScramUpsertion => ({ name, mechanism, iterations, salt: 'c2FsdA==', storedKey: 'c3RvcmVk', serverKey: 'c2VydmVy' });

describe('AlterUserScramCredentials (ScramControlManager)', () => {
  const exists = (name: string): boolean => name === 'alice';

  it('turns valid upsertions and deletions into records and reports each user once', () => {
    const { records, results } = alterScramCredentials(exists, [{ name: 'alice', mechanism: 'SCRAM-SHA-256' }], [up('bob', 8192, 'SCRAM-SHA-512')]);
    expect(records).toEqual([
      { type: 'RemoveUserScramCredential', name: 'alice', mechanism: 'SCRAM-SHA-256' },
      { type: 'UserScramCredential', credential: { name: 'bob', mechanism: 'SCRAM-SHA-512', iterations: 8192, salt: 'c2FsdA==', storedKey: 'c3RvcmVk', serverKey: 'c2VydmVy' } },
    ]);
    expect(results.map((r) => [r.user, r.errorCode])).toEqual([
      ['alice', 'NONE'],
      ['bob', 'NONE'],
    ]);
  });

  it("answers Kafka's errors and writes nothing for the users they name", () => {
    const { records, results } = alterScramCredentials(
      exists,
      [{ name: 'nobody', mechanism: 'SCRAM-SHA-256' }, { name: 'carol', mechanism: 'UNKNOWN' }, { name: 'alice', mechanism: 'SCRAM-SHA-256' }],
      [up(''), up('dave', 4095), up('erin', 16385), up('alice'), up('frank'), up('frank')],
    );
    expect(records).toEqual([]);
    const byUser = Object.fromEntries(results.map((r) => [r.user, [r.errorCode, r.errorMessage]]));
    expect(byUser).toEqual({
      nobody: ['RESOURCE_NOT_FOUND', 'Attempt to delete a user credential that does not exist'],
      carol: ['UNSUPPORTED_SASL_MECHANISM', 'Unknown SCRAM mechanism'],
      alice: ['DUPLICATE_RESOURCE', 'A user credential cannot be altered twice in the same request'],
      '': ['UNACCEPTABLE_CREDENTIAL', 'Username must not be empty'],
      dave: ['UNACCEPTABLE_CREDENTIAL', 'Too few iterations'],
      erin: ['UNACCEPTABLE_CREDENTIAL', 'Too many iterations'],
      frank: ['DUPLICATE_RESOURCE', 'A user credential cannot be altered twice in the same request'],
    });
  });
});

describe('DescribeUserScramCredentials (ScramImage.describe)', () => {
  const creds: ScramCredential[] = [
    { name: 'bob', mechanism: 'SCRAM-SHA-512', salt: 's', storedKey: 'k', serverKey: 'v', iterations: 8192 },
    { name: 'alice', mechanism: 'SCRAM-SHA-512', salt: 's', storedKey: 'k', serverKey: 'v', iterations: 4096 },
    { name: 'alice', mechanism: 'SCRAM-SHA-256', salt: 's', storedKey: 'k', serverKey: 'v', iterations: 5000 },
  ];

  it('lists every user without names, iterations per mechanism, never a key', () => {
    expect(describeScramCredentials(creds, null)).toEqual([
      { user: 'alice', errorCode: 'NONE', errorMessage: null, credentialInfos: [{ mechanism: 'SCRAM-SHA-256', iterations: 5000 }, { mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
      { user: 'bob', errorCode: 'NONE', errorMessage: null, credentialInfos: [{ mechanism: 'SCRAM-SHA-512', iterations: 8192 }] },
    ]);
    expect(JSON.stringify(describeScramCredentials(creds, []))).not.toMatch(/storedKey|serverKey|salt/);
  });

  it('answers RESOURCE_NOT_FOUND and DUPLICATE_RESOURCE per named user', () => {
    expect(describeScramCredentials(creds, ['zed', 'bob', 'bob']).map((r) => [r.user, r.errorCode, r.errorMessage])).toEqual([
      ['zed', 'RESOURCE_NOT_FOUND', 'Attempt to describe a user credential that does not exist: zed'],
      ['bob', 'DUPLICATE_RESOURCE', 'Cannot describe SCRAM credentials for the same user twice in a single request: bob'],
    ]);
  });
});
