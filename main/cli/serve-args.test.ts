/**
 * `npm run serve` arguments for reaching the cluster from elsewhere: `--bind ADDR` and
 * `--advertised-host NAME`, their checks, and the warning `--bind` prints.
 */
import { describe, expect, it } from 'vitest';
import { bindWarning, parseServeArgs } from './cli.js';

describe('--bind and --advertised-host', () => {
  it('are off by default: the listeners bind 127.0.0.1 and advertise it', () => {
    const a = parseServeArgs([]);
    expect(a.kafkaBind).toBeUndefined();
    expect(a.advertisedHost).toBeUndefined();
  });

  it('take an IP address of this machine and a host name or address', () => {
    expect(parseServeArgs(['--bind', '127.0.0.2', '--advertised-host', 'host.docker.internal'])).toMatchObject({ kafkaBind: '127.0.0.2', advertisedHost: 'host.docker.internal' });
    expect(parseServeArgs(['--bind', '::1']).kafkaBind).toBe('::1');
    expect(() => parseServeArgs(['--bind', 'example.com'])).toThrow(/--bind must be an IP address/);
    expect(() => parseServeArgs(['--advertised-host', 'bad host'])).toThrow(/--advertised-host must be a host name or an IP address/);
  });

  it('--bind warns, naming who can reach the brokers and what they can do, and advises SASL', () => {
    const wide = bindWarning('0.0.0.0', undefined);
    expect(wide).toMatch(/^WARNING: --bind 0\.0\.0\.0: /);
    expect(wide).toContain('anyone who can reach this machine on any of its addresses');
    expect(wide).toContain('create, read, write and delete every topic');
    expect(wide).toContain('--kafka-sasl-users');
    expect(bindWarning('192.168.1.20', undefined)).toContain('on 192.168.1.20 (other machines on the network, containers)');
    expect(bindWarning('127.0.0.2', undefined)).toContain('any process on this machine that connects to 127.0.0.2');
    expect(bindWarning('0.0.0.0', { saslUsers: '/x/users.json' })).toContain('they must authenticate with SASL first');
  });

  it('--bind with --schema-registry-port says the registry listens there too, and whether it asks for a password', () => {
    expect(bindWarning('0.0.0.0', undefined)).not.toContain('Schema Registry');
    expect(bindWarning('0.0.0.0', undefined, true)).toContain('The Schema Registry listens there too, with no authentication: they can register and delete every schema');
    expect(bindWarning('0.0.0.0', { saslUsers: '/x/users.json' }, true)).toContain('The Schema Registry listens there too, with HTTP basic auth for the same users.');
  });
});
