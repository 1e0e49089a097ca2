/**
 * Runs in the sandboxed renderer before the page: exposes `window.tsaroKiosk.call(name, input)`
 * (shared/kiosk/client.ts's bridge) and nothing else. The page gets no Node, no ipcRenderer.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { KIOSK_BRIDGE_NAME, type KioskBridge } from '../shared/kiosk/bridge.ts';
import { KIOSK_IPC_CHANNEL } from './ipc.ts';

const bridge: KioskBridge = {
  call: (name, input) => ipcRenderer.invoke(KIOSK_IPC_CHANNEL, String(name), input),
};
contextBridge.exposeInMainWorld(KIOSK_BRIDGE_NAME, bridge);
