import type { KioskBridge } from '../../shared/kiosk/bridge.ts';
import { isKioskCallName, KioskCallError, type KioskErrorBody } from '../../shared/kiosk/calls.ts';
import type { KioskCore } from './core.ts';

export type CallAnswer = { status: number; body: { result: unknown } | KioskErrorBody };

/**
 * What both hosts do with a call from the page: an unknown name is a 404, bad input a 400
 * naming the field, a failure the core foresaw its own code, and anything else a 500 without
 * internals (logged by the host).
 */
export async function answerCall(core: KioskCore, name: string, input: unknown, logError: (error: unknown) => void): Promise<CallAnswer> {
  if (!isKioskCallName(name)) return { status: 404, body: { code: 404, message: `Unknown kiosk call ${name}` } };
  try {
    return { status: 200, body: { result: await core.call(name, input) } };
  } catch (error) {
    if (error instanceof KioskCallError) return { status: error.code, body: error.toBody() };
    logError(error);
    return { status: 500, body: { code: 500, message: 'The kiosk core failed; see its log' } };
  }
}

/** The same, in the shape the Electron bridge carries (errors as data: Error subclasses do not cross contextBridge). */
export async function answerBridgeCall(core: KioskCore, name: string, input: unknown, logError: (error: unknown) => void): ReturnType<KioskBridge['call']> {
  const answer = await answerCall(core, name, input, logError);
  return 'result' in answer.body ? { result: answer.body.result } : { error: answer.body };
}
