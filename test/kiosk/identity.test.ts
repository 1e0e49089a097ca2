import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readIdentity } from '../../electron/core/identity/store.ts';
import { checkKioskCertificate } from '../../shared/node/kiosk-certificate.ts';
import { startGate, type Gate } from './support/gate.ts';

const HOUR = 3_600_000;
let gate: Gate;
beforeEach(async () => {
  gate = await startGate();
});
afterEach(async () => {
  await gate.stop();
});

const serverKiosk = async (kioskId: string) => (await gate.owner.get(`/kiosks/${kioskId}`)).body.kiosk as { certificate_expires_at: string | null; site_id: string; status: string };

describe("the kiosk's identity: its own key, certified by its site's kiosk authority (issue #49)", () => {
  it('a kiosk set up from its key enrols at its first heartbeat, keeps its key across restarts, and renews once half the certificate is gone', async () => {
    const { core, dataDir } = gate.kiosk({ timings: { heartbeatMs: 200 } });
    core.start();
    await expect.poll(async () => (await serverKiosk(core.kioskId)).certificate_expires_at, { timeout: 15_000 }).toBe(new Date(gate.clock.now().getTime() + 24 * HOUR).toISOString());
    const first = readIdentity(core.db)!;
    const site = (await serverKiosk(core.kioskId)).site_id;
    expect(first).toMatchObject({ site_id: site, expires_at: new Date(gate.clock.now().getTime() + 24 * HOUR).toISOString() });
    // What a peer at the same site checks, with the authority the kiosk was given.
    const expected = { authorities: [{ kid: first.authority_kid!, site_id: site, public_key: first.authority_public_key! }], organizationId: gate.org.organizationId, environment: 'live', siteId: site };
    const checked = checkKioskCertificate(first.certificate!, expected, gate.clock.now().getTime());
    expect(checked).toMatchObject({ ok: true, claims: { kiosk_id: core.kioskId, public_key: first.public_key } });

    // Restarted: the same key, no new certificate while the one it has is young.
    await core.close();
    const again = gate.kiosk({ dataDir, timings: { heartbeatMs: 200 } });
    again.core.start();
    await new Promise((done) => setTimeout(done, 1_000));
    expect(readIdentity(again.core.db)).toMatchObject({ public_key: first.public_key, certificate: first.certificate });

    // Thirteen hours on, the next heartbeat renews it: the same key, a later end.
    gate.clock.advance(13 * HOUR);
    const renewedUntil = new Date(gate.clock.now().getTime() + 24 * HOUR).toISOString();
    await expect.poll(async () => (await serverKiosk(core.kioskId)).certificate_expires_at, { timeout: 15_000 }).toBe(renewedUntil);
    await expect.poll(() => readIdentity(again.core.db)!.expires_at, { timeout: 15_000 }).toBe(renewedUntil);
    expect(readIdentity(again.core.db)!.public_key).toBe(first.public_key);
  });

  it('a retired kiosk keeps working at its gate but gets no new certificate, so its peers stop trusting it when the last one expires', async () => {
    const { core } = gate.kiosk({ timings: { heartbeatMs: 200 } });
    core.start();
    await expect.poll(async () => (await serverKiosk(core.kioskId)).certificate_expires_at, { timeout: 15_000 }).not.toBeNull();
    const before = readIdentity(core.db)!;
    expect((await gate.owner.delete(`/kiosks/${core.kioskId}`)).status).toBe(200);
    gate.clock.advance(13 * HOUR);
    // Heartbeats still reach the server (a retired kiosk's are recorded) ...
    const seen = gate.clock.now().toISOString();
    await expect.poll(async () => ((await gate.owner.get(`/kiosks/${core.kioskId}`)).body.kiosk as { last_seen_at: string }).last_seen_at >= seen, { timeout: 15_000 }).toBe(true);
    await new Promise((done) => setTimeout(done, 600));
    // ... but the certificate stays the one it had, and a day after it was made no peer accepts it.
    expect(readIdentity(core.db)).toMatchObject({ certificate: before.certificate, expires_at: before.expires_at });
    const expected = { authorities: [{ kid: before.authority_kid!, site_id: before.site_id!, public_key: before.authority_public_key! }], organizationId: gate.org.organizationId, environment: 'live', siteId: before.site_id! };
    expect(checkKioskCertificate(before.certificate!, expected, gate.clock.now().getTime() + 12 * HOUR)).toEqual({ ok: false, reason: 'expired' });
  });
});
