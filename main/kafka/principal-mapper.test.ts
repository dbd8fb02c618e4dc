/**
 * ssl.principal.mapping.rules as Kafka's SslPrincipalMapper applies them (the cases of its own
 * tests: the first rule that matches the whole distinguished name, group references, L and U,
 * DEFAULT), rules that do not parse, and a certificate subject as Node prints it turned into
 * RFC 2253's order; then over real TLS: a client certificate's mapped name is the principal.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionSession, createListenerServer } from './listener-security.js';
import { distinguishedName, PrincipalMapper } from './principal-mapper.js';

describe('ssl.principal.mapping.rules', () => {
  const rules = [
    'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/',
    'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L',
    'RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U',
    'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U',
    'DEFAULT',
  ].join(',');

  it('maps with the first rule that matches the whole name', () => {
    const m = new PrincipalMapper(rules);
    expect(m.nameOf('CN=Duke,OU=ServiceUsers,O=Org,C=US')).toBe('Duke');
    expect(m.nameOf('CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US')).toBe('duke@sme');
    expect(m.nameOf('cn=duke,ou=test,dc=testdomain,dc=com')).toBe('DUKE@TEST');
    expect(m.nameOf('cN=duke,OU=JavaSoft,O=Sun Microsystems')).toBe('DUKE');
    expect(m.nameOf('OU=JavaSoft,O=Sun Microsystems,C=US')).toBe('OU=JavaSoft,O=Sun Microsystems,C=US');
  });

  it('keeps the whole name by default, fails when no rule applies, and refuses rules that do not parse', () => {
    expect(new PrincipalMapper().nameOf('CN=alice,O=acme')).toBe('CN=alice,O=acme');
    expect(() => new PrincipalMapper('RULE:^CN=(.*)$/$1/').nameOf('OU=x')).toThrow(/No rules apply to OU=x/);
    for (const bad of ['DEFAULT/L', 'RULE:/', 'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/LU', 'RULE:x/y/L,DEFAULTS']) expect(() => new PrincipalMapper(bad), bad).toThrow(/Invalid rule/);
    // A back reference to a group the pattern does not have stays literal.
    expect(new PrincipalMapper('RULE:^CN=(.*)$/$1-$2/').nameOf('CN=a')).toBe('a-$2');
  });

  it("reads Node's subject lines in RFC 2253's order (the last relative name first)", () => {
    expect(distinguishedName('C=US\nO=acme\nOU=payments\nCN=alice')).toBe('CN=alice,OU=payments,O=acme,C=US');
  });
});

describe('the principal of a TLS client certificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-principal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

  it('is User:<the mapped name> on an SSL listener, User:ANONYMOUS without a certificate', async () => {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=test CA');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/C=US/O=acme/OU=ServiceUsers/CN=billing');
    openssl('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '1');
    const read = (f: string) => readFileSync(join(dir, f));
    const security = { tls: { cert: read('server.pem'), key: read('server.key'), clientCa: read('ca.pem') } };
    const mapper = new PrincipalMapper('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT');
    const principals: string[] = [];
    const server = createListenerServer(security, (socket) => {
      principals.push(connectionSession(socket, security, mapper).principal);
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve, reject) => {
      const c = connect({ host: '127.0.0.1', port, ca: read('ca.pem'), cert: read('client.pem'), key: read('client.key') }, () => c.on('close', () => resolve()));
      c.on('error', reject);
    });
    server.close();
    expect(principals).toEqual(['User:billing']);
    // A listener without a client CA asks for no certificate: ANONYMOUS.
    const open = { tls: { cert: read('server.pem'), key: read('server.key') } };
    const anonymous: string[] = [];
    const server2 = createListenerServer(open, (socket) => {
      anonymous.push(connectionSession(socket, open, mapper).principal);
      socket.end();
    });
    await new Promise<void>((resolve) => server2.listen(0, '127.0.0.1', resolve));
    const port2 = (server2.address() as { port: number }).port;
    await new Promise<void>((resolve, reject) => {
      const c = connect({ host: '127.0.0.1', port: port2, ca: read('ca.pem') }, () => c.on('close', () => resolve()));
      c.on('error', reject);
    });
    server2.close();
    expect(anonymous).toEqual(['User:ANONYMOUS']);
  }, 30_000);
});
