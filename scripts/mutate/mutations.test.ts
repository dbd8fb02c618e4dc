import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEdits } from './apply.js';
import { MUTATIONS } from './mutations.js';

describe('the mutation catalogue', () => {
  it.each(MUTATIONS.map((m) => [m.name, m] as const))('%s still applies to its file and changes it', (_, m) => {
    const text = readFileSync(m.file, 'utf8');
    const mutated = applyEdits(text, m.edits);
    expect(mutated, `${m.name}: ${typeof mutated === 'string' ? '' : mutated.error}`).toBeTypeOf('string');
    expect(mutated).not.toBe(text);
  });

  it('names every mutant once', () => {
    const names = MUTATIONS.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses an edit whose search text is missing or ambiguous', () => {
    expect(applyEdits('a b a', [{ search: 'a', replace: 'c' }])).toEqual({ error: 'edit 1: search text occurs more than once' });
    expect(applyEdits('a b', [{ search: 'x', replace: 'c' }])).toEqual({ error: 'edit 1: search text not found' });
    expect(applyEdits('a b', [{ search: 'b', replace: 'c' }])).toBe('a c');
  });
});
