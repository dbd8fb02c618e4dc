/**
 * The contract's modules (app/api) build on each other in one direction. ESLint's no-cycle skips
 * `import type`, and the circle this guards against (events.ts ⇄ views.ts) was type-only, so the
 * graph is read here: every relative `import`/`export … from`, type-only ones included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const API = join(import.meta.dirname, '..', 'app', 'api');
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"](\.\/[^'"]+)\.js['"]/g;

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of readdirSync(API).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const text = readFileSync(join(API, file), 'utf8');
    edges.set(file.slice(0, -3), [...text.matchAll(SPECIFIER)].map((m) => m[1]!.slice(2)));
  }
  return edges;
}

/** One cycle as a path (a → … → a), or null. */
function findCycle(edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('app/api import graph', () => {
  it('has no cycle, type-only imports included', () => {
    const edges = graph();
    expect(edges.get('events')).toBeDefined();
    expect(findCycle(edges)).toBeNull();
  });

  it('would name a cycle (the check is not blind)', () => {
    expect(findCycle(new Map([['events', ['views']], ['views', ['events']]]))).toEqual(['events', 'views', 'events']);
  });
});
