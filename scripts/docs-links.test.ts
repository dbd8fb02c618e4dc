import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenCodeCitations, brokenMarkdownLinks, codeCitations, formatProblems, headingSlugs, markdownLinks, staleDocPaths } from './docs-links.js';

const root = join(import.meta.dirname, '..');

describe('what README.md, docs/ and the code point at exists in the repository', () => {
  it('every relative link in README.md and docs/*.md resolves, to a file and to a heading for #anchors', () => {
    const problems = brokenMarkdownLinks(root);
    expect(problems, formatProblems(problems)).toEqual([]);
  });

  it('every repository path written as inline code in README.md and docs/*.md exists', () => {
    const problems = staleDocPaths(root);
    expect(problems, formatProblems(problems)).toEqual([]);
  });

  it('code cites no .md file the repository does not hold, and no section of a document one cannot open', () => {
    const problems = brokenCodeCitations(root);
    expect(problems, formatProblems(problems)).toEqual([]);
  });
});

describe('the checker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-docs-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('gives headings the anchors a forge gives them, repeated ones numbered', () => {
    const slugs = headingSlugs('# Replica Studio\n## The `acks` rule: HW & ISR (KIP-101)\n```\n# not a heading\n```\n## Notes\n### Notes\n');
    expect([...slugs]).toEqual(['replica-studio', 'the-acks-rule-hw--isr-kip-101', 'notes', 'notes-1']);
  });

  it('reads links outside code, leaving out URLs and inline code', () => {
    const md = 'See [a](docs/a.md#x) and ![b](images/b.png "t"), [c](https://kafka.apache.org/) and `[d](e.md)`.\n```\n[f](g.md)\n```\n';
    expect(markdownLinks(md)).toEqual([
      { target: 'docs/a.md#x', line: 1 },
      { target: 'images/b.png', line: 1 },
    ]);
  });

  it('finds .md citations and bare section marks in code, but not RFC sections or .md in URLs', () => {
    const src = [
      '// rules of DESIGN.md and kafka-semantics.md §4, see docs/semantics.md#elections',
      '// RFC 5802 §3 and https://github.com/apache/kafka/blob/trunk/README.md',
      '// the controller (§2b)',
    ].join('\n');
    expect(codeCitations(src)).toEqual([
      { target: 'DESIGN.md', line: 1, kind: 'md' },
      { target: 'kafka-semantics.md', line: 1, kind: 'md' },
      { target: 'docs/semantics.md#elections', line: 1, kind: 'md' },
      { target: '§4', line: 1, kind: 'section' },
      { target: '§2b', line: 3, kind: 'section' },
    ]);
  });

  it('fails a missing file, a missing anchor and a link out of the repository, and passes good ones', () => {
    write('README.md', '# Top\n[ok](docs/a.md#rules) [self](#top) [gone](docs/missing.md) [bad](docs/a.md#nope) [out](../x.md)\n');
    write('docs/a.md', '# A\n## Rules\n[back](../README.md#top) [img](images/p.png)\n');
    write('docs/images/p.png', 'png');
    write('app/x.ts', '// see docs/a.md#rules and README.md; not CONVENTIONS.md nor docs/a.md#gone\n');
    const files = ['README.md', 'docs/a.md', 'docs/images/p.png', 'app/x.ts'];
    expect(brokenMarkdownLinks(dir, files).map((p) => p.target)).toEqual(['docs/missing.md', 'docs/a.md#nope', '../x.md']);
    expect(brokenCodeCitations(dir, files).map((p) => p.target)).toEqual(['CONVENTIONS.md', 'docs/a.md#gone']);
  });

  it('finds repository paths in the docs\' inline code that name nothing, but not folders that hold files or what git ignores', () => {
    write('docs/b.md', '`app/x.ts` and `app/` exist; `app/gone.ts`, `main/host/` do not; `dist/renderer` and `npm test` are not ours to check\n```\n`app/fenced.ts`\n```\n');
    const files = ['README.md', 'docs/b.md', 'app/x.ts'];
    expect(staleDocPaths(dir, files).map((p) => p.target)).toEqual(['app/gone.ts', 'main/host/']);
  });
});
