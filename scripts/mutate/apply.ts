/**
 * Applying a mutation's edits to a file's text. Each search text must occur exactly once in the
 * text as it stands before that edit; otherwise the mutation is stale (the rule moved) and
 * nothing is applied.
 */
import type { MutationEdit } from './mutations.js';

export function applyEdits(text: string, edits: readonly MutationEdit[]): string | { error: string } {
  let out = text;
  for (const [i, e] of edits.entries()) {
    const at = out.indexOf(e.search);
    if (at < 0) return { error: `edit ${i + 1}: search text not found` };
    if (out.indexOf(e.search, at + 1) >= 0) return { error: `edit ${i + 1}: search text occurs more than once` };
    out = out.slice(0, at) + e.replace + out.slice(at + e.search.length);
  }
  return out;
}
