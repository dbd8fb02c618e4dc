import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Resolve the browser in a fresh process with this environment; its one stderr line and exit code. */
function resolveIn(env: Record<string, string>): { status: number | null; stderr: string; stdout: string } {
  const script = "import('./e2e/support/browser.ts').then(async (m) => { const c = await m.resolveBrowser(); console.log(JSON.stringify(c)); }).catch((e) => { console.error(String(e.message)); process.exit(3); })";
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REPLICA_STUDIO_BROWSER') && k !== 'CHROMIUM_PATH')) as Record<string, string>;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, env: { ...clean, ...env }, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

describe('choosing the browser (e2e/support/browser.ts)', () => {
  it('REPLICA_STUDIO_BROWSER=npm hides any system browser and takes the Chromium npm installed, saying so once', () => {
    const run = resolveIn({ REPLICA_STUDIO_BROWSER: 'npm' });
    expect(run.status).toBe(0);
    const choice = JSON.parse(run.stdout) as { source: string; executablePath: string; args: string[] };
    expect(choice.source).toBe('npm');
    expect(existsSync(choice.executablePath)).toBe(true);
    // Our tests check web security; the serverless build's switches that weaken it are left out.
    expect(choice.args).not.toContain('--disable-web-security');
    expect(run.stderr.trim().split('\n')).toEqual([`browser: Chromium from npm (@sparticuz/chromium) at ${choice.executablePath} (REPLICA_STUDIO_BROWSER=npm)`]);
  });

  it('refuses a misspelt choice and a CHROMIUM_PATH that does not exist, in words', () => {
    expect(resolveIn({ REPLICA_STUDIO_BROWSER: 'firefox' })).toMatchObject({ status: 3, stderr: 'REPLICA_STUDIO_BROWSER must be "npm" or "system", got "firefox"\n' });
    expect(resolveIn({ CHROMIUM_PATH: '/nonexistent/chrome' })).toMatchObject({ status: 3, stderr: 'CHROMIUM_PATH names /nonexistent/chrome, which does not exist\n' });
  });
});
