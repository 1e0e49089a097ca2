import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, refusedAddress } from '../../server/webhooks/url-policy.ts';

const live = { environment: 'live', allowPrivate: false };
/** A live endpoint is never sent to a private address, whatever the operator allows. */
const liveOnPermissive = { environment: 'live', allowPrivate: true };
const sandbox = { environment: 'sandbox', allowPrivate: false };
const sandboxAllowed = { environment: 'sandbox', allowPrivate: true };
const policies = { live, sandbox, sandboxAllowed } as Record<string, { environment: string; allowPrivate: boolean }>;

describe('where webhooks may be sent', () => {
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '::1',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '224.0.0.1',
    '::127.0.0.1',
    '::ffff:0:7f00:1',
    '2002:7f00:1::',
    '64:ff9b:1::a00:1',
    'fec0::1',
  ])('live endpoints never reach %s', (address) => {
    expect(refusedAddress(address, live)).toBeDefined();
    expect(refusedAddress(address, liveOnPermissive)).toBeDefined();
  });

  it.each(['8.8.8.8', '102.89.32.1', '2001:4860:4860::8888', '172.32.0.1'])('live endpoints reach the public address %s', (address) => {
    expect(refusedAddress(address, live)).toBeUndefined();
    expect(refusedAddress(address, sandbox)).toBeUndefined();
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.5', '172.16.0.1', '192.168.1.10', '100.64.0.1', 'fd12::1'])(
    'sandbox endpoints reach the loopback or private address %s only when the operator allows it (WEBHOOK_ALLOW_PRIVATE)',
    (address) => {
      expect(refusedAddress(address, sandbox)).toMatch(/loopback or private addresses .*WEBHOOK_ALLOW_PRIVATE=1/);
      expect(refusedAddress(address, sandboxAllowed)).toBeUndefined();
    },
  );

  it.each(['169.254.169.254', 'fe80::1', '0.0.0.0', '224.0.0.1', '::ffff:169.254.169.254'])(
    'no sandbox endpoint ever reaches the link-local or reserved address %s, allowed or not',
    (address) => {
      expect(refusedAddress(address, sandbox)).toBeDefined();
      expect(refusedAddress(address, sandboxAllowed)).toBeDefined();
    },
  );

  it.each([
    ['http://example.com/hook', 'live', 'https'],
    ['https://127.0.0.1/hook', 'live', 'loopback'],
    ['https://[::1]/hook', 'live', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'live', 'link-local'],
    ['https://user:pass@8.8.8.8/hook', 'live', 'credentials'],
    ['https://localhost/hook', 'live', 'loopback'],
    ['http://10.0.0.5/hook', 'sandbox', 'private'],
    ['http://127.0.0.1:6379/hook', 'sandbox', 'loopback'],
    ['http://localhost:5432/hook', 'sandbox', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', 'sandboxAllowed', 'link-local'],
  ])('registration refuses %s for %s (%s)', async (url, policy, why) => {
    expect(await checkEndpointUrl(url, policies[policy]!)).toContain(why);
  });

  it('registration accepts http on loopback and private addresses for the sandbox when the operator allows it', async () => {
    expect(await checkEndpointUrl('http://127.0.0.1:4000/hook', sandboxAllowed)).toBeUndefined();
    expect(await checkEndpointUrl('http://10.0.0.5/hook', sandboxAllowed)).toBeUndefined();
  });
});
