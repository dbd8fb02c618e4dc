// ESLint rule `house/no-import-cycle`: a file may not import a file that imports it back, directly
// or through others, counting `import type` as much as a value import.
//
// eslint-plugin-import-x's `no-cycle` skips type-only imports (a type circle costs nothing at run
// time), but a type circle still ties two files into one room that cannot be read, moved or
// tested apart: the dispatcher and its ApiVersions handler, a driver and its method files. It
// also parses every file it follows with the full TypeScript parser, which doubled `npm run lint`.
// This rule reads each file once with TypeScript's import scanner (`ts.preProcessFile`, no parse
// tree), finds the strongly connected components of the import graph once per process (Tarjan),
// and reports each import whose target is in the importing file's component, with one circle it
// closes. Only relative imports are followed: packages cannot import our files back.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Extensions a relative specifier may stand for, as the code writes `./x.js` for `./x.ts`. */
const ALIASES = { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'], '.cjs': ['.cts', '.cjs'] };
const BARE = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.vue', '/index.ts', '/index.js'];

const isFile = (p) => existsSync(p) && statSync(p).isFile();

/** The file a relative specifier names, or undefined (a package, or a file that is not there). */
export function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  const ext = Object.keys(ALIASES).find((e) => base.endsWith(e));
  const candidates = ext ? ALIASES[ext].map((alias) => base.slice(0, -ext.length) + alias) : [base, ...BARE.map((b) => base + b)];
  return candidates.find(isFile);
}

/** The relative imports of `file` (static, type-only, re-exports and dynamic), as scanned. */
function scanImports(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  if (file.endsWith('.vue')) text = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.'));
}

/**
 * The import graph as far as the files linted in this process reach, and its strongly connected
 * components. ESLint runs each rule in one process per `eslint` run, and the files do not change
 * during it, so each file is scanned once.
 */
class ImportGraph {
  edges = new Map(); // file -> Map<resolved file, specifier>
  component = new Map(); // file -> its component (a shared array of files)

  importsOf(file) {
    let out = this.edges.get(file);
    if (!out) {
      out = new Map();
      for (const spec of scanImports(file)) {
        const target = resolveImport(file, spec);
        if (target && !target.includes('/node_modules/') && !out.has(target)) out.set(target, spec);
      }
      this.edges.set(file, out);
    }
    return out;
  }

  /** Tarjan's algorithm from `start`, iteratively; every file it reaches gets its final component. */
  componentOf(start) {
    if (this.component.has(start)) return this.component.get(start);
    const index = new Map();
    const low = new Map();
    const stack = [];
    const onStack = new Set();
    let next = 0;
    const frames = [{ file: start, targets: null }];
    while (frames.length) {
      const frame = frames[frames.length - 1];
      const { file } = frame;
      if (frame.targets === null) {
        index.set(file, next);
        low.set(file, next);
        next++;
        stack.push(file);
        onStack.add(file);
        frame.targets = [...this.importsOf(file).keys()].filter((t) => !this.component.has(t))[Symbol.iterator]();
      }
      const step = frame.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) frames.push({ file: target, targets: null });
        else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
        continue;
      }
      frames.pop();
      if (frames.length) {
        const parent = frames[frames.length - 1].file;
        low.set(parent, Math.min(low.get(parent), low.get(file)));
      }
      if (low.get(file) === index.get(file)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== file);
        for (const m of members) this.component.set(m, members);
      }
    }
    return this.component.get(start);
  }

  /** One shortest way from `from` to `to` inside their component (files in order, both included). */
  pathWithin(from, to, members) {
    const inside = new Set(members);
    const previous = new Map([[from, null]]);
    const queue = [from];
    while (queue.length) {
      const file = queue.shift();
      if (file === to) break;
      for (const target of this.importsOf(file).keys()) {
        if (inside.has(target) && !previous.has(target)) {
          previous.set(target, file);
          queue.push(target);
        }
      }
    }
    const path = [];
    for (let f = to; f !== null && f !== undefined; f = previous.get(f)) path.unshift(f);
    return path;
  }
}

let graph = new ImportGraph();

/** Start over (tests that write files between two lint runs in one process). */
export function forgetImportGraph() {
  graph = new ImportGraph();
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import circles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import circle: {{circle}}. Move what both sides need into a file of its own.' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file || file === '<text>') return {};
    const members = graph.componentOf(file);
    if (!members || members.length < 2) return {};
    const root = context.cwd ?? process.cwd();
    const check = (node) => {
      const source = node.source ?? node.moduleReference?.expression;
      if (!source || typeof source.value !== 'string') return;
      const target = resolveImport(file, source.value);
      if (!target || !members.includes(target)) return;
      const back = graph.pathWithin(target, file, members);
      const circle = [file, ...back].map((f) => relative(root, f)).join(' → ');
      context.report({ node: source, messageId: 'cycle', data: { circle } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      TSImportEqualsDeclaration: check,
    };
  },
};

export default { meta: { name: 'house' }, rules: { 'no-import-cycle': noImportCycle } };
