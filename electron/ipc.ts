/** The one IPC channel between the preload and the main process: it carries the handler map. */
export const KIOSK_IPC_CHANNEL = 'tsaro-kiosk:call';
