import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifyWebhookSignature } from '../../shared/webhooks.ts';

const body = JSON.stringify({ id: 'evt_01', type: 'incident.created', created_at: '2026-11-22T10:00:00.000Z', data: { incident_id: 'inc_1' } });
const secret = 'whsec_test_secret_0123456789';
const t = 1_795_341_600;

describe('webhook signatures (Stripe scheme)', () => {
  it('is HMAC-SHA256 of "<t>.<raw body>" in hex, as Stripe computes it', async () => {
    const header = await signatureHeader([secret], t, body);
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(header).toBe(`t=${t},v1=${expected}`);
  });

  it("Stripe's own SDK verifier accepts a Tsaro delivery", async () => {
    const header = await signatureHeader([secret], t, body);
    const stripe = new Stripe('sk_test_unused');
    const event = stripe.webhooks.constructEvent(body, header, secret, 300, undefined, t + 10);
    expect(event).toMatchObject({ id: 'evt_01', type: 'incident.created' });
  });

  it('verifies within the tolerance, refuses outside it, a changed body, a wrong secret or no header', async () => {
    const header = await signatureHeader([secret], t, body);
    expect(await verifyWebhookSignature(body, header, secret, { now: t + 299 })).toBe(true);
    expect(await verifyWebhookSignature(body, header, secret, { now: t + 301 })).toBe(false);
    expect(await verifyWebhookSignature(body, header, secret, { now: t + 1000, toleranceSeconds: 1200 })).toBe(true);
    expect(await verifyWebhookSignature(`${body} `, header, secret, { now: t })).toBe(false);
    expect(await verifyWebhookSignature(body, header, 'whsec_other', { now: t })).toBe(false);
    expect(await verifyWebhookSignature(body, undefined, secret, { now: t })).toBe(false);
    expect(await verifyWebhookSignature(body, 'v1=abc', secret, { now: t })).toBe(false);
  });

  it('during a rotation either secret verifies', async () => {
    const header = await signatureHeader([secret, 'whsec_old'], t, body);
    expect(header.split(',')).toHaveLength(3);
    expect(await verifyWebhookSignature(body, header, secret, { now: t })).toBe(true);
    expect(await verifyWebhookSignature(body, header, 'whsec_old', { now: t })).toBe(true);
    expect(await verifyWebhookSignature(body, header, 'whsec_neither', { now: t })).toBe(false);
  });
});
