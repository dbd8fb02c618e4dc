/**
 * Apache Kafka's Java client (kafka-clients 3.8.0) for the security e2e test: the programs in
 * `e2e/java-security/` compiled against the client's jar and run with `java`, as an application
 * uses it. Where the client is: $KAFKA_JAVA_CLIENT (a folder with `kafka-clients-3.8.0.jar` and
 * `runtime-classpath.txt`), else ~/.cache/kafka-java-client/out, where the kafka-java-client
 * build.sh puts it. Without a JDK or the jar the test is skipped with one line saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROGRAMS = join(ROOT, 'e2e', 'java-security');

/** The client's classpath, or why the Java tests are skipped. */
export function javaClient(): { classpath: string } | { skipReason: string } {
  const dir = process.env['KAFKA_JAVA_CLIENT'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'kafka-java-client', 'out');
  const javac = spawnSync('javac', ['-version'], { stdio: 'ignore', timeout: 20_000 });
  if (javac.error !== undefined || javac.status !== 0) return { skipReason: 'skipped: no JDK (javac) is installed (Debian package openjdk-17-jdk-headless)' };
  const cp = join(dir, 'runtime-classpath.txt');
  if (!existsSync(join(dir, 'kafka-clients-3.8.0.jar')) || !existsSync(cp)) return { skipReason: `skipped: Apache Kafka's Java client is not built in ${dir} (the kafka-java-client build.sh builds it, or set KAFKA_JAVA_CLIENT)` };
  return { classpath: readFileSync(cp, 'utf8').trim() };
}

/** Compile the security programs; the classpath to run them with. */
export function compileSecurityPrograms(classpath: string): string {
  return compileJavaPrograms(PROGRAMS, classpath);
}

/** Compile the programs of an `e2e/` folder (e.g. `java-transactions`); the classpath to run them with. */
export function compileJavaPrograms(folder: string, classpath: string): string {
  const programs = folder.startsWith('/') ? folder : join(ROOT, 'e2e', folder);
  const out = mkdtempSync(join(tmpdir(), 'rs-java-programs-'));
  const sources = readdirSync(programs).filter((f) => f.endsWith('.java')).map((f) => join(programs, f));
  const r = spawnSync('javac', ['-cp', classpath, '-d', out, ...sources], { encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`javac failed: ${r.stderr || r.error?.message}`);
  return `${out}:${classpath}`;
}
