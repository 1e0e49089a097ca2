/**
 * The Electron shell: one full-screen kiosk window over the renderer, and the kiosk core in
 * this main process, reached only through the one IPC channel that carries the handler map.
 * No logic lives here: the core runs (and is tested) in plain Node; this file wires it to
 * Electron. Built to dist-electron/main.cjs by electron/build.mjs (`npm run kiosk`).
 */
import { join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, protocol, safeStorage, session, type IpcMainInvokeEvent } from 'electron';
import { answerBridgeCall } from './core/answer-call.ts';
import { createKioskCore, type KioskCore } from './core/core.ts';
import { kioskOptionsFromEnvironment } from './core/from-environment.ts';
import { KIOSK_IPC_CHANNEL } from './ipc.ts';
import { answerRendererRequest, RENDERER_INDEX_URL, RENDERER_SCHEME, RENDERER_SCHEME_PRIVILEGES, rendererMayRequest } from './renderer-protocol.ts';
import { safeStorageSecrets } from './safe-storage-secrets.ts';
import { mayUseCamera, PageRecovery, startupFailureText } from './shell-policy.ts';

const log = (message: string) => process.stderr.write(`[tsaro-kiosk] ${message}\n`);

// The screens come from tsaro-kiosk://app/ (see renderer-protocol.ts); this must be said before the app is ready.
protocol.registerSchemesAsPrivileged([RENDERER_SCHEME_PRIVILEGES]);

// One kiosk per machine: a second start only brings the first window forward.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let core: KioskCore | undefined;
  let window: BrowserWindow | undefined;
  let quitting = false;
  const rendererDir = join(app.getAppPath(), 'renderer', 'dist');
  const rendererUrl = RENDERER_INDEX_URL;
  const recovery = new PageRecovery();

  app.on('second-instance', () => {
    if (window?.isMinimized()) window.restore();
    window?.focus();
  });

  /** Calls come only from our own page in our own window, never from a frame or another page. */
  const fromOurPage = (event: IpcMainInvokeEvent) =>
    event.sender === window?.webContents && event.senderFrame !== null && event.senderFrame === window.webContents.mainFrame && event.senderFrame.url === rendererUrl;

  /** The page crashed or hangs: load it again, so the panic button comes back. */
  const reloadPage = (why: string) => {
    if (quitting || !window || window.isDestroyed()) return;
    const delayMs = recovery.reloadDelayMs(Date.now());
    log(`the kiosk page ${why}; loading it again in ${delayMs} ms`);
    setTimeout(() => {
      if (quitting || !window || window.isDestroyed()) return;
      window.webContents.loadURL(rendererUrl).catch((error: unknown) => log(`could not load the kiosk page: ${String(error)}`));
    }, delayMs);
  };

  const start = () => {
    core = createKioskCore({
      ...kioskOptionsFromEnvironment(process.env, join(app.getPath('userData'), 'kiosk')),
      secretStore: safeStorageSecrets(safeStorage, log),
    });
    core.start();

    // The screens, the decoder's .wasm included, from the app's own files with their MIME types;
    // and nothing from anywhere else (kiosks are offline; the core does all the talking).
    protocol.handle(RENDERER_SCHEME, (request) => answerRendererRequest(request, rendererDir));
    session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
      const allowed = rendererMayRequest(details.url);
      if (!allowed) log(`refused a request from the kiosk page to ${details.url}`);
      callback({ cancel: !allowed });
    });

    ipcMain.handle(KIOSK_IPC_CHANNEL, async (event, name: unknown, input: unknown) => {
      if (!fromOurPage(event)) return { error: { code: 403, message: 'Calls are accepted only from the kiosk page itself' } };
      return answerBridgeCall(core!, String(name), input, (error) => log(String((error as Error)?.stack ?? error)));
    });

    // The camera for the QR scanner, for our page only; nothing else, ever.
    session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) => {
      const mediaTypes = 'mediaTypes' in details ? (details.mediaTypes ?? ['audio']) : undefined;
      callback(mayUseCamera({ permission, fromOurWindow: contents === window?.webContents, pageUrl: contents.getURL(), requestingUrl: details.requestingUrl, mediaTypes }, rendererUrl));
    });
    session.defaultSession.setPermissionCheckHandler((contents, permission, _requestingOrigin, details) =>
      mayUseCamera(
        {
          permission,
          fromOurWindow: contents !== null && contents === window?.webContents,
          pageUrl: contents?.getURL() ?? null,
          requestingUrl: details.requestingUrl,
          mediaTypes: details.mediaType === 'audio' ? ['audio'] : undefined,
        },
        rendererUrl,
      ),
    );

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
    window.webContents.on('render-process-gone', (_event, details) => reloadPage(`stopped (${details.reason})`));
    // A hung page cannot be reloaded in place: its renderer is ended, and 'render-process-gone' reloads it.
    window.on('unresponsive', () => {
      log('the kiosk page stopped responding; restarting it');
      window?.webContents.forcefullyCrashRenderer();
    });
    void window.loadURL(rendererUrl);
  };

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      // Not a silent process holding the single-instance lock: say why, and exit.
      log(`could not start: ${(error as Error)?.stack ?? String(error)}`);
      const { title, message } = startupFailureText(error);
      try {
        dialog.showErrorBox(title, message);
      } finally {
        quitting = true;
        void core?.close().catch(() => undefined);
        app.exit(1);
      }
    });

  app.on('window-all-closed', () => app.quit());
  // The sync under way finishes (a few seconds at most) and the database closes before the process ends.
  app.on('will-quit', (event) => {
    if (!core || quitting) return;
    quitting = true;
    event.preventDefault();
    const closing = core;
    core = undefined;
    closing
      .close()
      .catch((error: unknown) => log(`closing the kiosk core: ${String(error)}`))
      .finally(() => app.exit(0));
  });
}
