import {
  KioskCallError,
  type KioskCallInput,
  type KioskCallName,
  type KioskCallResult,
  type KioskErrorBody,
} from './calls.ts';
import { KIOSK_BRIDGE_NAME, KIOSK_CALL_PATH, type KioskBridge } from './bridge.ts';

/** Carries one call to the kiosk core and back; answers the result or throws a KioskCallError. */
export type KioskTransport = (name: KioskCallName, input: unknown) => Promise<unknown>;

export interface KioskClient {
  call<N extends KioskCallName>(name: N, input: KioskCallInput<N>): Promise<KioskCallResult<N>>;
}

export { KIOSK_BRIDGE_NAME, KIOSK_CALL_PATH, type KioskBridge } from './bridge.ts';

export function createKioskClient(transport: KioskTransport = defaultKioskTransport()): KioskClient {
  return {
    call: async (name, input) => (await transport(name, input)) as KioskCallResult<typeof name>,
  };
}

function isErrorBody(value: unknown): value is KioskErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as KioskErrorBody).code === 'number' && typeof (value as KioskErrorBody).message === 'string';
}

/** Electron: the preload bridge. Errors cross contextBridge as data, since Error subclasses do not survive it. */
export function bridgeTransport(bridge: KioskBridge): KioskTransport {
  return async (name, input) => {
    const answer = await bridge.call(name, input);
    if ('error' in answer) throw new KioskCallError(answer.error.code, answer.error.message);
    return answer.result;
  };
}

/** Browser host: `POST /api/calls/<name>` with the input as JSON; `{result}` or `{code, message}`. */
export function httpTransport(baseUrl = '', fetchImpl: typeof fetch = (...args) => fetch(...args)): KioskTransport {
  return async (name, input) => {
    let response: Response;
    try {
      response = await fetchImpl(`${baseUrl}${KIOSK_CALL_PATH}${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input ?? {}),
      });
    } catch (error) {
      throw new KioskCallError(503, `The kiosk core is not answering (${(error as Error).message})`);
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok && typeof body === 'object' && body !== null && 'result' in body) return (body as { result: unknown }).result;
    if (isErrorBody(body)) throw new KioskCallError(body.code, body.message);
    throw new KioskCallError(response.status || 500, `Unexpected answer from the kiosk core (HTTP ${response.status})`);
  };
}

/** The Electron bridge when the page runs in the kiosk shell, else the browser host on the page's own origin. */
export function defaultKioskTransport(): KioskTransport {
  const bridge = (globalThis as Record<string, unknown>)[KIOSK_BRIDGE_NAME] as KioskBridge | undefined;
  if (bridge && typeof bridge.call === 'function') return bridgeTransport(bridge);
  return httpTransport('');
}
