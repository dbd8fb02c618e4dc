/**
 * The mutation run (`npm run mutate`, not part of `npm test`): applies each single-rule mutation of
 * scripts/mutate/mutations.ts to a scratch copy of the repository, runs the checks against it, and
 * prints which mutants survive.
 *
 *   npm run mutate [-- --only a,b] [--seeds N] [--depth D] [--timeout S] [--every] [--checks a,b] [--list]
 *
 * For each mutant, in order, stopping at the first that fails ("kills" it) unless --every asks
 * for every check that does:
 *   1. the scenario suite and the engine's unit tests (vitest, --bail 1);
 *   2. N fault seeds (npm run faults -- --bail);
 *   3. the explorer at depth D (npm run explore -- --brokers 2 --records 1 --bail);
 *   4. the explorer with eligible leader replicas on, 2 faults, depth 5 (--elr);
 *   5. the explorer's security scope, no records, 2 faults, depth 5 (--security).
 * --checks picks some of them by name (scenarios, faults, explorer, explorer-elr, explorer-security).
 * Invariant: the working tree is never touched. The scratch copy is made once from the files git
 * knows (tracked and untracked, ignored ones left out) with node_modules linked; each mutant's
 * file is restored from the text read before the edit, in a `finally`, and a mutant whose search
 * text does not occur exactly once is reported as stale without running anything. Every check
 * runs in its own process group and is killed (the whole group) after --timeout seconds, which
 * counts as a kill: a rule whose loss hangs the cluster is still caught.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { MUTATIONS, type Mutation } from './mutate/mutations.js';
import { applyEdits } from './mutate/apply.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Check {
  name: string;
  command: string[];
}

interface Outcome {
  mutation: Mutation;
  status: 'killed' | 'survived' | 'stale';
  by: string;
  seconds: number;
}

function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'replica-mutate-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    const from = join(ROOT, f);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(from, join(dir, f));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Run one check in its own process group; resolves with its exit code (null after the timeout). */
function run(cwd: string, command: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let output = '';
    const keep = (b: Buffer): void => {
      output = (output + b.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code: signal ? null : code, output });
    });
  });
}

function firstFailure(output: string): string {
  // eslint-disable-next-line no-control-regex
  const line = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').find((l) => /FAIL|violation|✗|×|AssertionError|Error:/.test(l));
  return (line ?? '').trim().slice(0, 140);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      seeds: { type: 'string', default: '60' },
      depth: { type: 'string', default: '7' },
      timeout: { type: 'string', default: '300' },
      list: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      every: { type: 'boolean', default: false },
      checks: { type: 'string' },
    },
    strict: true,
  });
  const only = values.only ? new Set(values.only.split(',')) : null;
  const selected = MUTATIONS.filter((m) => !only || only.has(m.name));
  if (values.list) {
    for (const m of MUTATIONS) console.log(`${m.name.padEnd(36)} ${m.file}\n${''.padEnd(37)}${m.rule}${m.equivalent ? `\n${''.padEnd(37)}equivalent: ${m.equivalent}` : ''}`);
    return;
  }
  if (only && selected.length !== only.size) {
    console.error(`unknown mutation(s): ${[...only].filter((n) => !MUTATIONS.some((m) => m.name === n)).join(', ')}`);
    process.exit(2);
  }
  const timeoutMs = Number(values.timeout) * 1000;
  const bin = (name: string): string => join('node_modules', '.bin', name);
  const all: (Check & { key: string })[] = [
    { key: 'scenarios', name: 'scenarios', command: [bin('vitest'), 'run', '--project', 'unit', '--bail', '1', '--reporter', 'dot', 'app/sim/scenarios', 'app/core', 'app/sim/explore'] },
    { key: 'faults', name: `${values.seeds} fault seeds`, command: [bin('tsx'), 'scripts/fault-seeds.ts', '--seeds', values.seeds!, '--jobs', '1', '--bail'] },
    { key: 'explorer', name: `explorer depth ${values.depth}`, command: [bin('tsx'), 'scripts/explore.ts', '--brokers', '2', '--records', '1', '--depth', values.depth!, '--bail'] },
    // Eligible leader replicas (KIP-966) from the min-ISR edge: two faults reach a power loss and its restart.
    { key: 'explorer-elr', name: 'explorer --elr depth 5', command: [bin('tsx'), 'scripts/explore.ts', '--brokers', '2', '--elr', '--faults', '2', '--depth', '5', '--bail'] },
    // ACL bindings and SCRAM credentials: a change, a snapshot, a broker restarted behind it.
    { key: 'explorer-security', name: 'explorer --security depth 5', command: [bin('tsx'), 'scripts/explore.ts', '--brokers', '2', '--records', '0', '--security', '--faults', '2', '--depth', '5', '--bail'] },
  ];
  const wanted = values.checks ? new Set(values.checks.split(',')) : null;
  const checks: Check[] = all.filter((c) => !wanted || wanted.has(c.key));
  const dir = scratchCopy();
  console.log(`mutation run: ${selected.length} mutant(s) in ${dir}; checks: ${checks.map((c) => c.name).join(', ')}`);
  const outcomes: Outcome[] = [];
  const started = Date.now();
  try {
    for (const m of selected) {
      const t0 = Date.now();
      const path = join(dir, m.file);
      const original = readFileSync(path, 'utf8');
      const mutated = applyEdits(original, m.edits);
      if (typeof mutated !== 'string') {
        outcomes.push({ mutation: m, status: 'stale', by: mutated.error, seconds: 0 });
        console.log(`  ${m.name}: STALE (${mutated.error})`);
        continue;
      }
      let outcome: Outcome = { mutation: m, status: 'survived', by: '', seconds: 0 };
      try {
        writeFileSync(path, mutated);
        const by: string[] = [];
        for (const c of checks) {
          const r = await run(dir, c.command, timeoutMs);
          if (r.code === 0) continue;
          by.push(r.code === null ? `${c.name} (timed out)` : `${c.name}: ${firstFailure(r.output)}`);
          if (values.verbose) console.log(r.output.slice(-4000));
          if (!values.every) break;
        }
        if (by.length > 0) outcome = { mutation: m, status: 'killed', by: by.join(' | '), seconds: 0 };
      } finally {
        writeFileSync(path, original);
      }
      outcome.seconds = Math.round((Date.now() - t0) / 1000);
      outcomes.push(outcome);
      console.log(`  ${m.name}: ${outcome.status.toUpperCase()}${outcome.by ? ` by ${outcome.by}` : ''}${m.equivalent && outcome.status === 'survived' ? ' (equivalent, see the list)' : ''} [${outcome.seconds} s]`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(outcomes, Math.round((Date.now() - started) / 1000));
  const unexplained = outcomes.filter((o) => o.status === 'stale' || (o.status === 'survived' && !o.mutation.equivalent));
  process.exit(unexplained.length === 0 ? 0 : 1);
}

function printTable(outcomes: Outcome[], seconds: number): void {
  console.log('\n| mutant | file | outcome | caught by | s |\n|---|---|---|---|---|');
  for (const o of outcomes) {
    const status = o.status === 'survived' && o.mutation.equivalent ? 'survived (equivalent)' : o.status;
    const by = o.by.split(' | ').map((b) => b.split(':')[0]).join(', ');
    console.log(`| ${o.mutation.name} | ${o.mutation.file.replace(/^app\//, '')} | ${status} | ${by} | ${o.seconds} |`);
  }
  const killed = outcomes.filter((o) => o.status === 'killed').length;
  const equivalent = outcomes.filter((o) => o.status === 'survived' && o.mutation.equivalent).length;
  const survived = outcomes.filter((o) => o.status === 'survived' && !o.mutation.equivalent).map((o) => o.mutation.name);
  console.log(`\n${outcomes.length} mutants in ${seconds} s: ${killed} killed, ${equivalent} equivalent, ${survived.length} survived${survived.length ? ` (${survived.join(', ')})` : ''}`);
}

void main();
