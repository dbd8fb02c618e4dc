import { describe, expect, it, vi } from 'vitest';
import type { Result } from '../../app/api/contract.js';
import { createVirtualClusterService } from '../../app/sim/virtual-service.js';
import { APP_ORIGIN, handleInvoke, isTrustedSender, originOf, type BridgeService } from './ipc-bridge.js';

function fakeService(answer: Result<unknown> = { ok: true, value: 'answered' }) {
  const call = vi.fn<BridgeService['call']>(async () => answer);
  return { call };
}

const good = { senderUrl: `${APP_ORIGIN}/index.html#/topics`, isMainFrame: true };

describe('handleInvoke', () => {
  it('passes a well-formed call from the app page to the service and returns its envelope', async () => {
    const service = fakeService();
    const result = await handleInvoke({ ...good, method: 'topics.describe', payload: { name: 'orders' } }, service, APP_ORIGIN);
    expect(result).toEqual({ ok: true, value: 'answered' });
    expect(service.call).toHaveBeenCalledWith('topics.describe', { name: 'orders' });
  });

  it('treats a missing payload of an empty-input method as {}', async () => {
    const service = fakeService();
    const result = await handleInvoke({ ...good, method: 'cluster.describe', payload: undefined }, service, APP_ORIGIN);
    expect(result.ok).toBe(true);
    expect(service.call).toHaveBeenCalledWith('cluster.describe', {});
  });

  it('refuses a call from a foreign origin without reaching the service', async () => {
    const service = fakeService();
    for (const senderUrl of ['https://evil.example/', 'file:///tmp/x.html', 'app://other-app/index.html', 'http://127.0.0.1:5173/', undefined]) {
      const result = await handleInvoke({ senderUrl, isMainFrame: true, method: 'cluster.describe', payload: {} }, service, APP_ORIGIN);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('INVALID_REQUEST');
    }
    expect(service.call).not.toHaveBeenCalled();
  });

  it('refuses a call from a subframe, even one on the app origin', async () => {
    const service = fakeService();
    const result = await handleInvoke({ ...good, isMainFrame: false, method: 'cluster.describe', payload: {} }, service, APP_ORIGIN);
    expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', retriable: false } });
    expect(service.call).not.toHaveBeenCalled();
  });

  it('answers an unknown or non-string method with INVALID_REQUEST', async () => {
    const service = fakeService();
    for (const method of ['topics.explode', '__proto__', 'constructor', 42, null]) {
      const result = await handleInvoke({ ...good, method, payload: {} }, service, APP_ORIGIN);
      expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    }
    expect(service.call).not.toHaveBeenCalled();
  });

  it('relays the payload unparsed: the service checks it once, and a bad one changes nothing', async () => {
    const relay = fakeService();
    await handleInvoke({ ...good, method: 'topics.describe', payload: { name: 7 } }, relay, APP_ORIGIN);
    expect(relay.call).toHaveBeenCalledWith('topics.describe', { name: 7 });

    const service = createVirtualClusterService({ seed: 1, logger: { error: () => {} } });
    const wrongType = await handleInvoke({ ...good, method: 'topics.create', payload: { name: 7, partitions: 1, replicationFactor: 1 } }, service, APP_ORIGIN);
    expect(wrongType).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', retriable: false } });
    if (!wrongType.ok) expect(wrongType.error.details).toEqual([expect.objectContaining({ path: ['name'] })]);
    const unknownKey = await handleInvoke({ ...good, method: 'cluster.describe', payload: { typo: true } }, service, APP_ORIGIN);
    expect(unknownKey).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(await service.call('topics.list', {})).toEqual({ ok: true, value: [] });
  });

  it('never throws: a service that throws becomes an INTERNAL envelope and is logged', async () => {
    const logger = { error: vi.fn() };
    const service: BridgeService = { call: async () => { throw new Error('boom'); } };
    const result = await handleInvoke({ ...good, method: 'cluster.describe', payload: {} }, service, APP_ORIGIN, logger);
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(logger.error).toHaveBeenCalledOnce();
  });
});

describe('sender checks', () => {
  it('reads the origin of app:// URLs, which WHATWG URL reports as "null"', () => {
    expect(originOf('app://replica-studio/index.html')).toBe('app://replica-studio');
    expect(originOf('not a url')).toBeUndefined();
  });

  it('trusts only the main frame on the allowed origin', () => {
    expect(isTrustedSender('app://replica-studio/', true, APP_ORIGIN)).toBe(true);
    expect(isTrustedSender('app://replica-studio.evil/', true, APP_ORIGIN)).toBe(false);
    expect(isTrustedSender('app://replica-studio/', false, APP_ORIGIN)).toBe(false);
  });
});
