/**
 * `npm run gen:protocol`: regenerates app/protocol/generated from app/protocol/messages (the
 * generator is scripts/protocol-gen/generate.ts). Deletes generated files that no longer have a
 * message, so the folder is exactly the generator's output.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './protocol-gen/generate.js';

const root = join(import.meta.dirname, '..');
const outDir = join(root, 'app/protocol/generated');
const files = generate(join(root, 'app/protocol/messages'));
mkdirSync(outDir, { recursive: true });
for (const name of readdirSync(outDir)) {
  if (!files.has(name)) rmSync(join(outDir, name));
}
for (const [name, content] of files) writeFileSync(join(outDir, name), content);
console.log(`gen:protocol: wrote ${files.size} files to app/protocol/generated`);
