import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, refusedAddress } from '../../server/webhooks/url-policy.ts';

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
    expect(refusedAddress(address, 'live')).toBeDefined();
  });

  it.each(['8.8.8.8', '102.89.32.1', '2001:4860:4860::8888', '172.32.0.1'])('live endpoints reach the public address %s', (address) => {
    expect(refusedAddress(address, 'live')).toBeUndefined();
  });

  it('sandbox endpoints may use loopback, but no other private or link-local range', () => {
    expect(refusedAddress('127.0.0.1', 'sandbox')).toBeUndefined();
    expect(refusedAddress('::1', 'sandbox')).toBeUndefined();
    expect(refusedAddress('169.254.169.254', 'sandbox')).toBeDefined();
    expect(refusedAddress('10.0.0.5', 'sandbox')).toBeDefined();
  });

  it.each([
    ['http://example.com/hook', 'live', 'https'],
    ['https://127.0.0.1/hook', 'live', 'loopback'],
    ['https://[::1]/hook', 'live', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'live', 'link-local'],
    ['https://user:pass@8.8.8.8/hook', 'live', 'credentials'],
    ['https://localhost/hook', 'live', 'loopback'],
    ['http://10.0.0.5/hook', 'sandbox', 'private'],
  ])('registration refuses %s for %s (%s)', async (url, environment, why) => {
    expect(await checkEndpointUrl(url, environment)).toContain(why);
  });

  it('registration accepts http on loopback for the sandbox', async () => {
    expect(await checkEndpointUrl('http://127.0.0.1:4000/hook', 'sandbox')).toBeUndefined();
  });
});
