import { describe, expect, it } from 'vitest';
import { checkTool } from './optional-tools.js';

describe('optional tools', () => {
  it('names the missing tool and the Debian package that brings it, in one line', () => {
    const check = checkTool({ name: 'no-such-tool', probe: ['/nonexistent/no-such-tool', '--version'], debianPackage: 'no-such-package' });
    expect(check.available).toBe(false);
    expect(check.skipReason).toBe('skipped: no-such-tool is not installed (Debian package no-such-package: apt-get install no-such-package)');
    expect(check.skipReason.split('\n')).toHaveLength(1);
  });

  it('finds a tool whose probe exits 0', () => {
    expect(checkTool({ name: 'node', probe: [process.execPath, '--version'], debianPackage: 'nodejs' })).toEqual({ available: true, skipReason: '' });
  });
});
