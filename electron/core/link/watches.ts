import type { CoreContext } from '../context.ts';
import { cacheBehindSite, siteIdOf } from '../caches/site.ts';
import { renewCertificate, type IdentityDeps } from '../identity/identity.ts';
import { checkCoverage, type CoverageDeps } from './coverage.ts';
import { Every } from './every.ts';
import { beat, type HeartbeatDeps } from './heartbeat.ts';

/**
 * Whether responders cover the gate (`GET /dispatch/coverage`): at start, after setup, every
 * `coverageCheckMs`, with each heartbeat and on every SOS press, so the screens never show
 * "finding the nearest responder" from an answer older than the server's last word. One at a time.
 */
export function coverageWatch(ctx: CoverageDeps & Pick<CoreContext, 'logError'>): Every {
  return new Every('coverage check', ctx.timings.coverageCheckMs, async () => {
    if (ctx.link.api) await checkCoverage(ctx);
  }, ctx.logError);
}

/**
 * The heartbeat (link/heartbeat.ts): at start, every `heartbeatMs`, and once more when a sync gets
 * through after failures, so the server hears the kiosk's state (and its clock) as soon as the
 * link is back. Each beat refreshes the coverage too; an answer naming a new site has its codes
 * read at once (`siteChanged`), not at the next sync. A beat that got through renews the
 * kiosk's certificate when it is due (identity/identity.ts): the first one enrols it. One at a time.
 */
export function heartbeatWatch(
  ctx: HeartbeatDeps & IdentityDeps & Pick<CoreContext, 'appVersion' | 'logError'>,
  then: { coverage: Every; siteChanged(): void },
): Every {
  return new Every('heartbeat', ctx.timings.heartbeatMs, async () => {
    if (!ctx.link.api) return;
    try {
      const beaten = await beat(ctx, ctx.appVersion);
      if (cacheBehindSite(ctx)) then.siteChanged();
      if (beaten === 'sent') await renewCertificate(ctx, siteIdOf(ctx));
    } finally {
      await then.coverage.runSoon();
    }
  }, ctx.logError);
}
