/**
 * The main-process side of the IPC bridge, kept free of any electron import so it is unit-tested
 * without the Electron binary. `main.ts` adapts `ipcMain.handle('rs:invoke', …)` to it.
 *
 * Order of checks (docs/architecture.md#the-hosts-guards): the sender frame first (the main frame of a page on the
 * app:// origin; anything else, including a subframe of our own page, is refused), then the
 * method name against the contract; only then is the call relayed to the service, which checks
 * the payload against the method's schema (app/api/service.ts: one check, one INVALID_INPUT shape,
 * the same answer the HTTP host gives). Every outcome is an envelope: this function never throws
 * or rejects.
 */
import { isMethodName, type Result } from '../../app/api/contract.js';
import type { ErrorView } from '../../app/api/errors.js';
import { unknownMethodError, type EngineService, type ErrorLogger } from '../../app/api/service.js';

/** The one IPC channel for calls (renderer → main, invoke/handle). */
export const INVOKE_CHANNEL = 'rs:invoke';
/** The one IPC channel for engine events (main → renderer, send/on). */
export const EVENT_CHANNEL = 'rs:event';
/** The origin the built UI is served from (see `security.ts`). */
export const APP_ORIGIN = 'app://replica-studio';

/** What the bridge needs to know about one `invoke` from the renderer. */
export interface InvokeRequest {
  /** URL of the frame that sent the message (`event.senderFrame.url`); undefined if the frame is gone. */
  senderUrl: string | undefined;
  /** Whether that frame is the top frame of its page (`senderFrame === sender.mainFrame`). */
  isMainFrame: boolean;
  method: unknown;
  payload: unknown;
}

/** The part of the engine service the bridge calls. */
export type BridgeService = Pick<EngineService, 'call'>;

function fail(code: ErrorView['code'], message: string): { ok: false; error: ErrorView } {
  return { ok: false, error: { code, message, retriable: false } };
}

/** The origin of a URL (`app://replica-studio`), or undefined when it does not parse. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    // Non-special schemes (app:) report origin "null"; build it from protocol + host instead.
    return `${u.protocol}//${u.host}`;
  } catch {
    return undefined;
  }
}

/** Whether a frame with this URL may talk to the engine. */
export function isTrustedSender(senderUrl: string | undefined, isMainFrame: boolean, allowedOrigin: string): boolean {
  return isMainFrame && originOf(senderUrl) === allowedOrigin;
}

/** Check one invoke and run it on `service`. Never throws. */
export async function handleInvoke(
  request: InvokeRequest,
  service: BridgeService,
  allowedOrigin: string = APP_ORIGIN,
  logger: ErrorLogger = { error: (m, e) => console.error(m, e) },
): Promise<Result<unknown>> {
  try {
    if (!isTrustedSender(request.senderUrl, request.isMainFrame, allowedOrigin)) {
      return fail('INVALID_REQUEST', request.isMainFrame ? 'Refused: the sender is not a page of this app.' : 'Refused: only the main frame of the app may call the engine.');
    }
    const { method, payload } = request;
    if (typeof method !== 'string' || !isMethodName(method)) return { ok: false, error: unknownMethodError(method) };
    return await service.call(method, payload ?? {});
  } catch (e) {
    logger.error('The IPC bridge failed on a call', e);
    return fail('INTERNAL', 'Internal error in the IPC bridge.');
  }
}
