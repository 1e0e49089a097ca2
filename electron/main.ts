/**
 * The Electron shell: one full-screen kiosk window over the renderer, and the kiosk core in
 * this main process, reached only through the one IPC channel that carries the handler map.
 * No logic lives here: the core runs (and is tested) in plain Node; this file wires it to
 * Electron. Built to dist-electron/main.cjs by electron/build.mjs (`npm run kiosk`).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, safeStorage, session, type IpcMainInvokeEvent } from 'electron';
import { answerBridgeCall } from './core/answer-call.ts';
import { createKioskCore, type KioskCore } from './core/core.ts';
import { kioskOptionsFromEnvironment } from './core/from-environment.ts';
import { KIOSK_IPC_CHANNEL } from './ipc.ts';
import { safeStorageSecrets } from './safe-storage-secrets.ts';

const log = (message: string) => process.stderr.write(`[tsaro-kiosk] ${message}\n`);

// One kiosk per machine: a second start only brings the first window forward.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let core: KioskCore | undefined;
  let window: BrowserWindow | undefined;
  const rendererIndex = join(app.getAppPath(), 'renderer', 'dist', 'index.html');
  const rendererUrl = pathToFileURL(rendererIndex).href;

  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });

  /** Calls come only from our own page in our own window, never from a frame or another page. */
  const fromOurPage = (event: IpcMainInvokeEvent) =>
    event.sender === window?.webContents && event.senderFrame !== null && event.senderFrame === window.webContents.mainFrame && event.senderFrame.url === rendererUrl;

  app.whenReady().then(() => {
    core = createKioskCore({
      ...kioskOptionsFromEnvironment(process.env, join(app.getPath('userData'), 'kiosk')),
      secretStore: safeStorageSecrets(safeStorage, log),
    });
    core.start();

    ipcMain.handle(KIOSK_IPC_CHANNEL, async (event, name: unknown, input: unknown) => {
      if (!fromOurPage(event)) return { error: { code: 403, message: 'Calls are accepted only from the kiosk page itself' } };
      return answerBridgeCall(core!, String(name), input, (error) => log(String((error as Error)?.stack ?? error)));
    });

    // The camera for the QR scanner, for our page only; nothing else, ever.
    session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
      callback(permission === 'media' && contents === window?.webContents && details.requestingUrl === rendererUrl);
    });
    session.defaultSession.setPermissionCheckHandler((contents, permission) => permission === 'media' && contents === window?.webContents);

    window = new BrowserWindow({
      kiosk: true,
      fullscreen: true,
      autoHideMenuBar: true,
      backgroundColor: '#000000',
      show: false,
      webPreferences: {
        preload: join(app.getAppPath(), 'dist-electron', 'preload.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        spellcheck: false,
        devTools: !app.isPackaged,
      },
    });
    window.removeMenu();
    window.once('ready-to-show', () => window?.show());
    // The kiosk shows one page: no navigation away, no new windows.
    window.webContents.on('will-navigate', (event) => event.preventDefault());
    window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    void window.loadFile(rendererIndex);
  }, (error: unknown) => {
    log(`could not start: ${String(error)}`);
    app.exit(1);
  });

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void core?.close();
  });
}
