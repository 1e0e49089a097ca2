// First: before any schema loads.
import './zod-config.ts';
import { createRoot } from 'react-dom/client';
import { createKioskClient } from '../../shared/kiosk/client.ts';
import { App } from './app.tsx';
import { I18nProvider } from './i18n/index.tsx';
import { KioskProvider } from './kiosk/kiosk-context.tsx';
// In this order: later files refine the shared parts of earlier ones.
import './styles/base.css';
import './styles/status.css';
import './styles/rail-and-buttons.css';
import './styles/scan.css';
import './styles/keyboard-and-forms.css';
import './styles/on-premises.css';
import './styles/panic.css';
import './styles/result.css';
import './styles/sheets.css';
import './styles/setup.css';

// The Electron bridge inside the kiosk shell, the browser host's /api/calls otherwise.
const client = createKioskClient();

createRoot(document.getElementById('root')!).render(
  <I18nProvider>
    <KioskProvider client={client}>
      <App />
    </KioskProvider>
  </I18nProvider>,
);
