/**
 * The contract over HTTP: `POST /api/<method>` with a JSON body (empty = `{}`), relayed unparsed
 * to the engine service, which checks it (app/api/service.ts), so this host and the IPC bridge
 * answer the same envelope for the same input.
 *
 *   200 {ok:true,value} | 200 {ok:false,error}   an engine error, with Kafka's code
 *   400 INVALID_INPUT (the schema) / INVALID_REQUEST (the body is not JSON)
 *   404 an unknown method · 405 not POST · 413 a body over the limit · 500 INTERNAL
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMethodName } from '../../app/api/contract.js';
import { unknownMethodError, type EngineService } from '../../app/api/service.js';
import { HttpError, safeDecode, sendJson } from './http-common.js';

/** Answer one call to `/api/<name>` (`name` as it appears in the path). */
export async function handleApiCall(req: IncomingMessage, res: ServerResponse, name: string, service: Pick<EngineService, 'call'>, maxBodyBytes: number): Promise<void> {
  const method = safeDecode(name);
  if (method === undefined || !isMethodName(method)) {
    const error = unknownMethodError(method ?? name);
    throw new HttpError(404, error.code, error.message);
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    throw new HttpError(405, 'INVALID_REQUEST', `Use POST for /api/${method}.`);
  }
  const body = await readBody(req, res, maxBodyBytes);
  let input: unknown;
  if (body.length > 0) {
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw new HttpError(400, 'INVALID_REQUEST', `The request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const result = await service.call(method, input);
  const status = result.ok ? 200 : result.error.code === 'INVALID_INPUT' ? 400 : result.error.code === 'INTERNAL' ? 500 : 200;
  sendJson(res, status, result);
}

/** The request body, at most `limit` bytes (413 beyond, and the connection is closed). */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.setHeader('Connection', 'close');
    return Promise.reject(new HttpError(413, 'INVALID_REQUEST', `The request body exceeds ${limit} bytes.`));
  }
  return new Promise<Buffer>((done, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        res.setHeader('Connection', 'close');
        res.once('finish', () => req.destroy());
        reject(new HttpError(413, 'INVALID_REQUEST', `The request body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) done(Buffer.concat(chunks));
    });
    req.on('error', (e) => reject(new HttpError(400, 'INVALID_REQUEST', `The request body could not be read: ${e.message}`)));
  });
}
