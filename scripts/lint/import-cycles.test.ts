import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import house, { forgetImportGraph } from './import-cycles.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Lint a tree of files with the rule alone; resolves with `file:line message` per problem. */
async function lint(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'rs-cycles-'));
  dirs.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  forgetImportGraph();
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { house }, rules: { 'house/no-import-cycle': 'error' } }],
  });
  const results = await eslint.lintFiles(['**/*.ts']);
  return results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length + 1)}:${m.line} ${m.message}`)).sort();
}

describe('house/no-import-cycle', () => {
  it('reports both ends of a circle closed by a type-only import, naming the circle', async () => {
    const problems = await lint({
      'dispatcher.ts': "import { handler } from './handlers/versions.js';\nexport interface Handler { key: number }\nexport const all = [handler];\n",
      'handlers/versions.ts': "import type { Handler } from '../dispatcher.js';\nexport const handler: Handler = { key: 18 };\n",
    });
    expect(problems).toEqual([
      'dispatcher.ts:1 Import circle: dispatcher.ts → handlers/versions.ts → dispatcher.ts. Move what both sides need into a file of its own.',
      'handlers/versions.ts:1 Import circle: handlers/versions.ts → dispatcher.ts → handlers/versions.ts. Move what both sides need into a file of its own.',
    ]);
  });

  it('follows re-exports and dynamic imports through a longer circle, and leaves the files outside it alone', async () => {
    const problems = await lint({
      'a.ts': "export * from './b.js';\nimport { leaf } from './leaf.js';\nexport const a = leaf;\n",
      'b.ts': "export const b = () => import('./c.js');\n",
      'c.ts': "import type { a } from './a.js';\nexport type C = typeof a;\n",
      'leaf.ts': 'export const leaf = 1;\n',
      'user.ts': "import { a } from './a.js';\nexport const user = a;\n",
    });
    expect(problems.map((p) => p.split(' Move')[0])).toEqual([
      'a.ts:1 Import circle: a.ts → b.ts → c.ts → a.ts.',
      'b.ts:1 Import circle: b.ts → c.ts → a.ts → b.ts.',
      'c.ts:1 Import circle: c.ts → a.ts → b.ts → c.ts.',
    ]);
  });

  it('is quiet once the shared type has a file of its own', async () => {
    const problems = await lint({
      'api-handler.ts': 'export interface Handler { key: number }\n',
      'dispatcher.ts': "import { handler } from './handlers/versions.js';\nimport type { Handler } from './api-handler.js';\nexport const all: Handler[] = [handler];\n",
      'handlers/versions.ts': "import type { Handler } from '../api-handler.js';\nexport const handler: Handler = { key: 18 };\n",
    });
    expect(problems).toEqual([]);
  });
});
