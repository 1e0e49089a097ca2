import { createRoot } from 'react-dom/client';
import { createKioskClient } from '../../shared/kiosk/client.ts';
import { App } from './app.tsx';
import { I18nProvider } from './i18n/index.tsx';
import { KioskProvider } from './kiosk/kiosk-context.tsx';
import './styles.css';

// The Electron bridge inside the kiosk shell, the browser host's /api/calls otherwise.
const client = createKioskClient();

createRoot(document.getElementById('root')!).render(
  <I18nProvider>
    <KioskProvider client={client}>
      <App />
    </KioskProvider>
  </I18nProvider>,
);
