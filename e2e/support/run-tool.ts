/** Runs a command-line Kafka client (kcat, /usr/bin/python3, node) bounded in time: its exit code and output. */
import { spawn } from 'node:child_process';

export interface ToolRun {
  /** null when it was killed at the time limit. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `until`: a program that runs until interrupted (a consumer) is sent SIGINT once its output
 * matches, and what it printed by then is the result.
 */
export function runTool(command: string, args: string[], options: { input?: string; ms?: number; cwd?: string; until?: RegExp } = {}): Promise<ToolRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd ? { cwd: options.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.until?.test(stdout)) child.kill('SIGINT');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.ms ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
