/**
 * What README.md, docs/ and the code point at, and whether it is there. A person who clones the
 * repository must be able to follow every reference: a relative link in Markdown resolves to a
 * file of the repository (and its `#anchor` to a heading of that file), a `.md` file named in code
 * is a file of the repository, and a section mark (§ and a number) in code names a document one
 * can open (an RFC by number; our own docs are cited by path and `#anchor` instead). Used by
 * `docs-links.test.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

export interface Problem {
  /** Repository-relative file and 1-based line of the reference. */
  file: string;
  line: number;
  target: string;
  reason: string;
}

/**
 * The anchor a forge gives a heading (GitHub's rule): lower case, inline markup and punctuation
 * dropped (letters, digits, spaces, `-` and `_` stay), each space a `-`; a repeated slug gets
 * `-1`, `-2`, … in order.
 */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const { raw } of lines(markdown)) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!m) continue;
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** The lines of a Markdown file outside fenced code blocks, as written and with inline code blanked out. */
function lines(markdown: string): { raw: string; text: string; line: number }[] {
  const out: { raw: string; text: string; line: number }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((raw, i) => {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ raw, text: raw.replace(/`[^`]*`/g, (s) => ' '.repeat(s.length)), line: i + 1 });
  });
  return out;
}

/** Relative link targets in a Markdown file: `[text](target)` and `![alt](target)`. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  for (const { text, line } of lines(markdown)) {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      out.push({ target, line });
    }
  }
  return out;
}

/**
 * References to documents in a source file: `.md` paths (with an optional `#anchor`) outside
 * URLs, and `§` section marks that follow no RFC number.
 */
export function codeCitations(source: string): { target: string; line: number; kind: 'md' | 'section' }[] {
  const out: { target: string; line: number; kind: 'md' | 'section' }[] = [];
  source.split('\n').forEach((raw, i) => {
    const text = raw.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, (s) => ' '.repeat(s.length));
    for (const m of text.matchAll(/[\w./-]*[\w-]\.md(?:#[\w-]+)?\b/g)) out.push({ target: m[0], line: i + 1, kind: 'md' });
    for (const m of text.matchAll(/§\s?\d/g)) {
      const before = text.slice(0, m.index);
      if (!/\bRFC ?\d+,? $/.test(before)) out.push({ target: text.slice(m.index).match(/^§[\s\d.a-z–-]*/)![0].trim(), line: i + 1, kind: 'section' });
    }
  });
  return out;
}

/** Every file of the repository git knows or would add (tracked, or untracked and not ignored). */
export function repositoryFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter((f) => f !== '' && existsSync(join(root, f)));
}

/** Whether `path#anchor` (repository-relative path) resolves; a reason when it does not. */
function resolveTarget(root: string, path: string, anchor: string | undefined, slugCache: Map<string, Set<string>>): string | null {
  const abs = join(root, path);
  if (relative(root, abs).startsWith('..')) return 'points outside the repository';
  if (!existsSync(abs)) return 'no such file in the repository';
  if (anchor === undefined || anchor === '') return null;
  if (statSync(abs).isDirectory() || !abs.endsWith('.md')) return `an anchor into a file that is not Markdown`;
  let slugs = slugCache.get(abs);
  if (!slugs) slugCache.set(abs, (slugs = headingSlugs(readFileSync(abs, 'utf8'))));
  return slugs.has(anchor.toLowerCase()) ? null : `no heading with anchor #${anchor} in ${path}`;
}

/** Broken relative links in README.md and docs/**.md. */
export function brokenMarkdownLinks(root: string, files = repositoryFiles(root)): Problem[] {
  const problems: Problem[] = [];
  const cache = new Map<string, Set<string>>();
  for (const file of files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))) {
    for (const { target, line } of markdownLinks(readFileSync(join(root, file), 'utf8'))) {
      const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = rawPath === '' ? file : normalize(join(dirname(file), decodeURIComponent(rawPath)));
      const reason = resolveTarget(root, path, anchor, cache);
      if (reason) problems.push({ file, line, target, reason });
    }
  }
  return problems;
}

/** A repository path in inline code: a top-level folder of ours, then no spaces or placeholders. */
const REPO_PATH = /^(?:app|main|renderer|scripts|bench|e2e|resources|docs)\/[\w./-]*$/;

/**
 * Repository paths written as inline code in README.md and docs/**.md (`app/core/engine.ts`) that
 * name nothing the repository holds, so prose about files cannot outlive a move. Folders count when
 * some file lies under them; paths git ignores (build output, artifacts) are left alone.
 */
export function staleDocPaths(root: string, files = repositoryFiles(root)): Problem[] {
  const known = new Set(files);
  const folders = new Set(files.flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  const problems: Problem[] = [];
  for (const file of files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')))) {
    for (const { raw, line } of lines(readFileSync(join(root, file), 'utf8'))) {
      for (const m of raw.matchAll(/`([^`\s]+)`/g)) {
        const written = m[1]!.replace(/#.*$/, '');
        const path = written.replace(/\/$/, '');
        if (!REPO_PATH.test(written) || known.has(path) || folders.has(path) || ignored(root, written)) continue;
        problems.push({ file, line, target: m[1]!, reason: 'no such file or folder in the repository' });
      }
    }
  }
  return problems;
}

function ignored(root: string, path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', path], { cwd: root });
    return true;
  } catch {
    return false;
  }
}

const CODE = /\.(ts|vue|js|mjs)$/;
/** The checker's own tests cite missing documents on purpose, to see them caught. */
const FIXTURES = new Set(['scripts/docs-links.test.ts']);

/** Citations in code of documents the repository does not hold. */
export function brokenCodeCitations(root: string, files = repositoryFiles(root)): Problem[] {
  const problems: Problem[] = [];
  const cache = new Map<string, Set<string>>();
  for (const file of files.filter((f) => CODE.test(f) && !FIXTURES.has(f) && !/(^|\/)(node_modules|dist)\//.test(f))) {
    for (const { target, line, kind } of codeCitations(readFileSync(join(root, file), 'utf8'))) {
      if (kind === 'section') {
        problems.push({ file, line, target, reason: 'a section mark with no document one can open: cite docs/<file>.md#anchor, a KIP or Kafka\'s documentation' });
        continue;
      }
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      // A bare or repository-relative path is read from the root, one that starts with a dot from the file.
      const candidates = path.startsWith('.') ? [normalize(join(dirname(file), path))] : [path, normalize(join(dirname(file), path))];
      const reasons = candidates.map((p) => resolveTarget(root, p, anchor, cache));
      if (reasons.every((r) => r !== null)) problems.push({ file, line, target, reason: reasons[0]! });
    }
  }
  return problems;
}

export function formatProblems(problems: Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.target} — ${p.reason}`).join('\n');
}
