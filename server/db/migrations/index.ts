import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.ts';
import * as visitorAccess from './0002-visitor-access.ts';
import * as webhooks from './0003-webhooks.ts';
import * as responders from './0004-responders.ts';
import * as dispatch from './0005-dispatch.ts';
import * as threatEvents from './0006-threat-events.ts';
import * as incidentsByResponder from './0007-incidents-by-responder.ts';
import * as threatRevisions from './0008-threat-revisions.ts';
import { sealedPassKeys } from './0009-sealed-pass-keys.ts';
import * as threatDataReleases from './0010-threat-data-releases.ts';
import * as authRevision from './0014-auth-revision.ts';
import * as webhookRevision from './0015-webhook-revision.ts';
import * as secretsWithoutTheDatabase from './0016-secrets-without-the-database.ts';
import * as consolePeople from './0017-console-people.ts';
import * as testEvents from './0018-test-events.ts';
import * as deliveryResponseExcerpt from './0019-delivery-response-excerpt.ts';
import * as eventFeed from './0020-event-feed.ts';
import * as kiosks from './0021-kiosks.ts';
import * as rollCalls from './0022-roll-calls.ts';
import * as twoStepPolicy from './0023-two-step-policy.ts';
import * as memberships from './0024-memberships.ts';
import * as keyMakers from './0025-key-makers.ts';
import * as sites from './0026-sites.ts';
import * as siteNaming from './0027-site-naming.ts';
import * as textMessages from './0028-text-messages.ts';
import * as kioskSites from './0029-kiosk-sites.ts';
import * as hostTexts from './0030-host-texts.ts';
import * as rollCallSites from './0031-roll-call-sites.ts';
import * as siteLimits from './0032-site-limits.ts';
import * as sitePassKeys from './0033-site-pass-keys.ts';
import * as severalOrganizations from './0034-several-organizations.ts';
import * as leanerSosWrites from './0035-leaner-sos-writes.ts';
import * as readsAtScale from './0036-reads-at-scale.ts';
import * as secondStepAndOpenLinks from './0041-second-step-and-open-links.ts';
import * as siteBoundReplays from './0042-site-bound-replays.ts';
import * as textCeilings from './0043-text-ceilings.ts';
import * as namesPeopleChoose from './0044-names-people-choose.ts';
import * as alarmLoopAndPassLinks from './0045-alarm-loop-and-pass-links.ts';
import * as staff from './0047-staff.ts';
import * as responderRoster from './0048-responder-roster.ts';
import * as manualDispatch from './0049-manual-dispatch.ts';
import * as dutyShiftsSafety from './0050-duty-shifts-safety.ts';
import * as offerBell from './0051-offer-bell.ts';
import * as responseIntervals from './0053-response-intervals.ts';
import * as alreadyInside from './0055-already-inside.ts';
import * as excessUses from './0056-excess-uses.ts';
import * as monthlyTallies from './0057-monthly-tallies.ts';
import * as oneDeliveryIndex from './0058-one-delivery-index.ts';
import * as kioskIdentities from './0059-kiosk-identities.ts';
import * as offerStandDowns from './0062-offer-stand-downs.ts';
import * as oneTextIndex from './0063-one-text-index.ts';
import type { SecretBox } from '../../secrets/secret-box.ts';

export interface MigrationSettings {
  /** The sealing key's box: 0009 seals plain pass-signing keys with it, asking only when it finds one. */
  secretBox: () => SecretBox;
}

/** For callers that hold no sealing key (tests of a schema, tools): only a database with plain pass keys from before 0009 needs one. */
export const withoutSealingKey: MigrationSettings = {
  secretBox: () => {
    throw new Error('this database holds plain pass-signing keys from before migration 0009: migrate it with the server or the CLI, which hold the sealing key');
  },
};

/** Every migration, in order. Names sort as they run; a migration is never edited once merged. */
export const serverMigrations = (settings: MigrationSettings): Record<string, Migration> => ({
  '0001-foundation': foundation,
  '0002-visitor-access': visitorAccess,
  '0003-webhooks': webhooks,
  '0004-responders': responders,
  '0005-dispatch': dispatch,
  '0006-threat-events': threatEvents,
  '0007-incidents-by-responder': incidentsByResponder,
  '0008-threat-revisions': threatRevisions,
  '0009-sealed-pass-keys': sealedPassKeys(settings.secretBox),
  '0010-threat-data-releases': threatDataReleases,
  '0014-auth-revision': authRevision,
  '0015-webhook-revision': webhookRevision,
  '0016-secrets-without-the-database': secretsWithoutTheDatabase,
  '0017-console-people': consolePeople,
  '0018-test-events': testEvents,
  '0019-delivery-response-excerpt': deliveryResponseExcerpt,
  '0020-event-feed': eventFeed,
  '0021-kiosks': kiosks,
  '0022-roll-calls': rollCalls,
  '0023-two-step-policy': twoStepPolicy,
  '0024-memberships': memberships,
  '0025-key-makers': keyMakers,
  '0026-sites': sites,
  '0027-site-naming': siteNaming,
  '0028-text-messages': textMessages,
  '0029-kiosk-sites': kioskSites,
  '0030-host-texts': hostTexts,
  '0031-roll-call-sites': rollCallSites,
  '0032-site-limits': siteLimits,
  '0033-site-pass-keys': sitePassKeys,
  '0034-several-organizations': severalOrganizations,
  '0035-leaner-sos-writes': leanerSosWrites,
  '0036-reads-at-scale': readsAtScale,
  '0041-second-step-and-open-links': secondStepAndOpenLinks,
  '0042-site-bound-replays': siteBoundReplays,
  '0043-text-ceilings': textCeilings,
  '0044-names-people-choose': namesPeopleChoose,
  '0045-alarm-loop-and-pass-links': alarmLoopAndPassLinks,
  '0047-staff': staff,
  '0048-responder-roster': responderRoster,
  '0049-manual-dispatch': manualDispatch,
  '0050-duty-shifts-safety': dutyShiftsSafety,
  '0051-offer-bell': offerBell,
  '0053-response-intervals': responseIntervals,
  '0055-already-inside': alreadyInside,
  '0056-excess-uses': excessUses,
  '0057-monthly-tallies': monthlyTallies,
  '0058-one-delivery-index': oneDeliveryIndex,
  '0059-kiosk-identities': kioskIdentities,
  '0062-offer-stand-downs': offerStandDowns,
  '0063-one-text-index': oneTextIndex,
});
