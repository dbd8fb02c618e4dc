import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from './protocol-gen/generate.js';

const root = join(import.meta.dirname, '..');
const generatedDir = join(root, 'app/protocol/generated');

describe('npm run gen:protocol', () => {
  it('the checked-in codecs are exactly what the generator makes from the message definitions', () => {
    const expected = generate(join(root, 'app/protocol/messages'));
    const onDisk = readdirSync(generatedDir).sort();
    expect(onDisk, 'files in app/protocol/generated (run npm run gen:protocol)').toEqual([...expected.keys()].sort());
    const stale = [...expected].filter(([name, content]) => readFileSync(join(generatedDir, name), 'utf8') !== content).map(([n]) => n);
    expect(stale, 'stale generated files (run npm run gen:protocol)').toEqual([]);
  });

  it('emits one codec module per message definition plus the API table', () => {
    const messages = readdirSync(join(root, 'app/protocol/messages')).filter((f) => f.endsWith('.json') && f !== 'index.json');
    expect(generate(join(root, 'app/protocol/messages')).size).toBe(messages.length + 1);
  });
});
