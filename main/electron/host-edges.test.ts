/**
 * The two doors the console uses, the HTTP host and the Electron IPC bridge, over one engine
 * service: the same call answers the same envelope through either, because neither parses the
 * input; the service checks it once (app/api/service.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../app/api/contract.js';
import { createVirtualClusterService } from '../../app/sim/virtual-service.js';
import { startHttpHost, type HttpHost } from '../http/http-host.js';
import { APP_ORIGIN, handleInvoke } from './ipc-bridge.js';

const token = 'f'.repeat(64);
const quiet = { error: () => {} };
const service = createVirtualClusterService({ seed: 5, logger: quiet });
let host: HttpHost;

beforeAll(async () => {
  host = await startHttpHost({ service, port: 0, host: '127.0.0.1', token, logger: quiet });
});

afterAll(async () => {
  await host?.close();
});

async function overHttp(method: string, input: unknown): Promise<{ status: number; body: Result<unknown> }> {
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as Result<unknown> };
}

function overIpc(method: string, input: unknown): Promise<Result<unknown>> {
  return handleInvoke({ senderUrl: `${APP_ORIGIN}/index.html`, isMainFrame: true, method, payload: input }, service, APP_ORIGIN);
}

describe('the HTTP host and the IPC bridge', () => {
  const badInputs: { method: string; input: unknown; path: (string | number)[]; says: string }[] = [
    { method: 'topics.create', input: { name: 7, partitions: 1, replicationFactor: 1 }, path: ['name'], says: 'name' },
    { method: 'records.produce', input: { topic: 'orders', acks: 'all', records: [{ value: 'ok' }, { value: 5 }] }, path: ['records', 1, 'value'], says: 'records.1.value' },
    { method: 'configs.alter', input: { set: { 'retention.ms': '1' } }, path: ['resource'], says: 'resource' },
    { method: 'cluster.describe', input: { typo: true }, path: [], says: 'typo' },
  ];

  for (const { method, input, path, says } of badInputs) {
    it(`answer the same INVALID_INPUT for ${method} ${JSON.stringify(input)}, naming the field ${JSON.stringify(path)}`, async () => {
      const http = await overHttp(method, input);
      const ipc = await overIpc(method, input);
      expect(http.status).toBe(400);
      expect(http.body).toEqual(ipc);
      expect(ipc).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', retriable: false, details: [expect.objectContaining({ path })] } });
      if (!ipc.ok) expect(ipc.error.message).toContain(says);
    });
  }

  it('answer the same INVALID_REQUEST for a method the contract does not have (404 over HTTP)', async () => {
    const http = await overHttp('topics.explode', {});
    expect(http.status).toBe(404);
    expect(http.body).toEqual(await overIpc('topics.explode', {}));
    expect(http.body).toEqual({ ok: false, error: { code: 'INVALID_REQUEST', message: 'Unknown method "topics.explode".', retriable: false } });
  });

  it('answer the same value for a good call, and a refused call changed nothing', async () => {
    const http = await overHttp('topics.list', {});
    expect(http.status).toBe(200);
    expect(http.body).toEqual(await overIpc('topics.list', {}));
    expect(http.body).toEqual({ ok: true, value: [] });
  });
});
