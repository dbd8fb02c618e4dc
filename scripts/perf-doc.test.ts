import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Results } from '../bench/figures.js';
import { DOC_PATH, PERF_BEGIN, PERF_END, readResults, renderFigures, replaceSection } from './perf-doc.js';

describe('docs/performance.md', () => {
  it('shows exactly the figures of the committed bench/results/latest.json (npm run docs:perf)', () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    expect(doc, 'run npm run docs:perf').toBe(replaceSection(doc, renderFigures(readResults())));
  });
});

describe('npm run docs:perf', () => {
  const results: Results = {
    machine: { cpu: 'Test CPU', cores: 2, node: 'v20.19.0', sqlite: '3.50.0', platform: 'linux 6.1', loadAverage: 3.5 },
    figures: [
      { name: 'scale.10k.rss', value: 236, unit: 'MB', limit: 600, ratio: 2.542, goal: 1, pass: true },
      { name: 'produce.rf3.acks-all.isr2.100B.records', value: 401234.5, unit: 'records/s', limit: 700000, ratio: 0.573, goal: 0.5, pass: true, context: { loadAverage: 0.97 } },
      { name: 'host.cluster-describe.p99-under-load', value: 75, unit: 'ms', limit: 50, ratio: 0.667, goal: 1, pass: false },
      { name: 'new.figure', value: 1, unit: 'x', limit: 1, ratio: 1, goal: 1, pass: true },
    ],
  };

  it('renders the machine, then each family in the page\'s order with the load each figure was measured under, a failing figure in bold and unknown families last', () => {
    const text = renderFigures(results);
    expect(text.split('\n')[0]).toMatch(/^Measured on Test CPU, 2 cores, Node v20\.19\.0, SQLite 3\.50\.0, linux 6\.1\. The load column/);
    const order = ['produce.rf3', 'host.cluster-describe', 'scale.10k.rss', 'new.figure'].map((n) => text.indexOf(n));
    expect(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!))).toBe(true);
    expect(text).toContain('| `produce.rf3.acks-all.isr2.100B.records` | 401,234.5 records/s | 700,000 | 0.573 | 0.5 | yes | 0.97 |');
    expect(text).toContain('| `host.cluster-describe.p99-under-load` | 75 ms | 50 | 0.667 | 1 | **no** | — |');
  });

  it('replaces only what lies between the markers, and refuses a page without them', () => {
    const doc = `# Perf\nprose before\n${PERF_BEGIN}\nold figures\n${PERF_END}\nprose after\n`;
    expect(replaceSection(doc, 'new figures')).toBe(`# Perf\nprose before\n${PERF_BEGIN}\nnew figures\n${PERF_END}\nprose after\n`);
    expect(() => replaceSection('# Perf\n', 'x')).toThrow(/needs the lines/);
  });
});
