import { z } from 'zod';

// The page's CSP forbids eval: tell zod not to probe for it (the probe is a CSP violation, logged
// as an error on every load). Its own module, imported first by main.tsx: imports run before the
// importing module's body, and the shared schemas imported beside this one already parse (and
// probe) while they load, so a z.config call in main.tsx's body came too late.
z.config({ jitless: true });
