/**
 * The browser-mode transport: `POST /api/<method>` with a JSON body, events on the `/events`
 * WebSocket. The host authenticates with the cookie it set when the start URL (with `?token=`)
 * was opened; scripts and tests pass the token instead (sent as `Authorization: Bearer`).
 * The WebSocket reconnects with capped backoff; listeners hear `connecting` meanwhile so the UI
 * can say its picture may be stale, and `open` again when it should re-read the state.
 */
import type { EngineEvent, MethodInput, MethodName, MethodResult, Result } from '../../../app/api/contract.js';
import type { ConnectionStatus, Transport } from './transport.js';

/** The subset of the WebSocket API used here (the browser's, or `ws` in Node tests). */
export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  close(): void;
}

export interface HttpTransportOptions {
  /** e.g. `http://127.0.0.1:4000`; default: the page's own origin. */
  baseUrl?: string;
  /** Sent as a Bearer token (scripts, tests); the browser uses the host's cookie instead. */
  token?: string;
  fetch?: typeof fetch;
  createSocket?: (url: string, headers: Record<string, string>) => SocketLike;
  /** Backoff between reconnects, ms (doubles up to maxBackoffMs). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export function createHttpTransport(options: HttpTransportOptions = {}): Transport {
  const base = (options.baseUrl ?? globalThis.location.origin).replace(/\/$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const listeners = new Set<(event: EngineEvent) => void>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let status: ConnectionStatus = 'connecting';
  let socket: SocketLike | null = null;
  let closed = false;
  let backoff = options.backoffMs ?? 250;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;

  const setStatus = (next: ConnectionStatus): void => {
    if (next === status) return;
    status = next;
    for (const l of statusListeners) l(next);
  };

  const createSocket =
    options.createSocket ??
    ((url: string) => new WebSocket(url) as unknown as SocketLike);

  function connect(): void {
    if (closed) return;
    setStatus('connecting');
    const wsUrl = `${base.replace(/^http/, 'ws')}/events`;
    const wsHeaders: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
    const ws = createSocket(wsUrl, wsHeaders);
    socket = ws;
    ws.onopen = () => {
      backoff = options.backoffMs ?? 250;
      setStatus('open');
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      let parsed: EngineEvent | EngineEvent[];
      try {
        parsed = JSON.parse(ev.data) as EngineEvent | EngineEvent[];
      } catch {
        return;
      }
      // A message is an array of events in order (main/http/http-events.ts); a lone event is one too.
      for (const event of Array.isArray(parsed) ? parsed : [parsed]) for (const l of listeners) l(event);
    };
    ws.onerror = () => {};
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      if (closed) {
        setStatus('closed');
        return;
      }
      setStatus('connecting');
      retryTimer = setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, options.maxBackoffMs ?? 5000);
    };
  }

  return {
    kind: 'http',
    async call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>> {
      let response: Response;
      try {
        response = await doFetch(`${base}/api/${method}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(input ?? {}),
          credentials: 'same-origin',
        });
      } catch (e) {
        return { ok: false, error: { code: 'INTERNAL', message: `The host did not answer (${e instanceof Error ? e.message : String(e)}). Is \`npm run serve\` still running?`, retriable: true } };
      }
      const text = await response.text();
      try {
        return JSON.parse(text) as Result<MethodResult<M>>;
      } catch {
        const message = response.status === 401 ? 'Not signed in to the host: open the URL it printed (with ?token=…) again.' : `The host answered ${response.status}: ${text.slice(0, 200)}`;
        return { ok: false, error: { code: 'INVALID_REQUEST', message, retriable: false } };
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      if (!socket && !closed && retryTimer === null) connect();
      return () => listeners.delete(listener);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      listener(status);
      return () => statusListeners.delete(listener);
    },
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      socket?.close();
      setStatus('closed');
    },
  };
}
