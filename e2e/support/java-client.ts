/**
 * Apache Kafka's Java client (kafka-clients 3.8.0) for black-box tests, the way an application
 * uses it: the test programs in `e2e/java/` compiled against the client's jar and run with `java`.
 *
 * Where the client is: $KAFKA_JAVA_CLIENT, a folder holding `kafka-clients-3.8.0.jar` and
 * `runtime-classpath.txt` (the jar and its dependencies, colon-separated), else
 * ~/.cache/kafka-java-client/out, where the kafka-java-client `build.sh` that `.ci/run` calls
 * (optional; it builds the client from Apache Kafka's sources with Debian's Java libraries) puts
 * them. Without a JDK or the jar, the tests that need it are skipped with one line saying so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolRun } from './run-tool.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROGRAMS = join(ROOT, 'e2e', 'java');

export interface JavaClientCheck {
  available: boolean;
  /** The client's classpath (jar and dependencies) when available. */
  classpath: string;
  skipReason: string;
}

function clientDir(): string {
  return process.env['KAFKA_JAVA_CLIENT'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'kafka-java-client', 'out');
}

let checked: JavaClientCheck | null = null;

/** Whether a JDK and the client are here (memoised); prints the skip line once when not. */
export function checkJavaClient(): JavaClientCheck {
  if (checked) return checked;
  const dir = clientDir();
  const javac = spawnSync('javac', ['-version'], { stdio: 'ignore', timeout: 20_000 });
  const jar = join(dir, 'kafka-clients-3.8.0.jar');
  const cp = join(dir, 'runtime-classpath.txt');
  let reason = '';
  if (javac.error !== undefined || javac.status !== 0) reason = 'no JDK (javac) is installed (Debian package openjdk-17-jdk-headless)';
  else if (!existsSync(jar) || !existsSync(cp)) reason = `Apache Kafka's Java client is not built (no ${jar}; the kafka-java-client build.sh that .ci/run calls builds it, or set KAFKA_JAVA_CLIENT)`;
  checked = reason
    ? { available: false, classpath: '', skipReason: `skipped: ${reason}` }
    : { available: true, classpath: readFileSync(cp, 'utf8').trim(), skipReason: '' };
  if (!checked.available) process.stderr.write(`${checked.skipReason}\n`);
  return checked;
}

/** Compile every program of e2e/java into a fresh folder; returns the classpath to run them with. */
export function compilePrograms(client: JavaClientCheck): string {
  const out = mkdtempSync(join(tmpdir(), 'rs-java-e2e-'));
  const sources = readdirSync(PROGRAMS).filter((f) => f.endsWith('.java')).map((f) => join(PROGRAMS, f));
  const r = spawnSync('javac', ['-cp', client.classpath, '-d', out, ...sources], { encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`javac failed: ${r.stderr || r.error?.message}`);
  return `${out}:${client.classpath}`;
}

/**
 * Run one program bounded in time; `onLine` sees each line it prints as it prints it. Its logs
 * (slf4j, no binding) stay quiet; what it checks it prints as "OK …" or "FAILED …" lines.
 */
export function runJava(classpath: string, main: string, args: string[], options: { ms?: number; onLine?: (line: string) => void } = {}): Promise<ToolRun> {
  return new Promise((resolve) => {
    const child = spawn('java', ['-cp', classpath, main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      partial += d.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine?.(line);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
