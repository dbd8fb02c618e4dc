/**
 * Tools that npm cannot bring, used by some black-box tests: Debian's `kcat` (librdkafka) and
 * `python3-kafka` (kafka-python, run by /usr/bin/python3). A test that needs one asks here; when
 * it is missing the test is skipped with one line naming the tool and the Debian package that
 * brings it (`.ci/run` installs them, so CI runs everything). `npm test` needs none of them.
 */
import { spawnSync } from 'node:child_process';

export interface OptionalTool {
  /** What the tests call it. */
  name: string;
  /** The command line that proves it works (exit 0). */
  probe: [command: string, ...args: string[]];
  /** The Debian package that brings it. */
  debianPackage: string;
}

export const OPTIONAL_TOOLS = {
  kcat: { name: 'kcat', probe: ['kcat', '-V'], debianPackage: 'kcat' },
  kafkaPython: { name: 'kafka-python', probe: ['/usr/bin/python3', '-c', 'import kafka'], debianPackage: 'python3-kafka' },
} satisfies Record<string, OptionalTool>;

export interface ToolCheck {
  available: boolean;
  /** One line for the skipped test's output when it is not available. */
  skipReason: string;
}

const checked = new Map<string, ToolCheck>();

/** Whether the tool runs here (memoised); prints the skip line once per process when it does not. */
export function checkTool(tool: OptionalTool): ToolCheck {
  const known = checked.get(tool.name);
  if (known) return known;
  const [command, ...args] = tool.probe;
  const run = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  const available = run.error === undefined && run.status === 0;
  const result = {
    available,
    skipReason: available ? '' : `skipped: ${tool.name} is not installed (Debian package ${tool.debianPackage}: apt-get install ${tool.debianPackage})`,
  };
  if (!available) process.stderr.write(`${result.skipReason}\n`);
  checked.set(tool.name, result);
  return result;
}
