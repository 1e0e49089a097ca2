import { describe, expect, it } from 'vitest';
import { kioskOptionsFromEnvironment, kioskPortFromEnvironment } from '../../electron/core/from-environment.ts';

const SET_UP = {
  KIOSK_SERVER_URL: 'https://api.example.ng/v1/external',
  KIOSK_API_KEY: 'svc_live_abc',
  KIOSK_ENTRY_POINT: 'Gate A',
  KIOSK_LOCATION: '6.4281, 3.4219',
};

describe("the kiosk's settings from the environment (the operator's interface)", () => {
  it('sets the kiosk up from the four KIOSK_* settings, or leaves it to the first-run setup with none', () => {
    expect(kioskOptionsFromEnvironment(SET_UP, '/var/kiosk')).toEqual({
      dataDir: '/var/kiosk',
      serverUrl: SET_UP.KIOSK_SERVER_URL,
      apiKey: 'svc_live_abc',
      entryPoint: 'Gate A',
      location: { latitude: 6.4281, longitude: 3.4219 },
      // Every kiosk listens for its site's other gates (issue #49), on 4310 unless told otherwise.
      peers: { port: 4310, addresses: [], discovery: true },
    });
    expect(kioskOptionsFromEnvironment({ KIOSK_DATA_DIR: '/srv/gate' }, '/var/kiosk')).toEqual({ dataDir: '/srv/gate', peers: { port: 4310, addresses: [], discovery: true } });
    expect(() => kioskOptionsFromEnvironment({ KIOSK_SERVER_URL: SET_UP.KIOSK_SERVER_URL }, '/d')).toThrow(/KIOSK_API_KEY, KIOSK_ENTRY_POINT, KIOSK_LOCATION/);
    expect(() => kioskOptionsFromEnvironment({ ...SET_UP, KIOSK_LOCATION: '95,3' }, '/d')).toThrow(/KIOSK_LOCATION must be "lat,lng"/);
  });

  it('KIOSK_ONLINE_WAIT_MS sets how long a decision waits for the server; unset keeps the 600 ms default', () => {
    expect(kioskOptionsFromEnvironment({ ...SET_UP, KIOSK_ONLINE_WAIT_MS: ' 2500 ' }, '/d').timings).toEqual({ onlineDecisionTimeoutMs: 2500 });
    expect(kioskOptionsFromEnvironment({ KIOSK_ONLINE_WAIT_MS: '100' }, '/d').timings).toEqual({ onlineDecisionTimeoutMs: 100 });
    expect(kioskOptionsFromEnvironment({ KIOSK_ONLINE_WAIT_MS: '30000' }, '/d').timings).toEqual({ onlineDecisionTimeoutMs: 30_000 });
    expect(kioskOptionsFromEnvironment({ ...SET_UP, KIOSK_ONLINE_WAIT_MS: '' }, '/d')).not.toHaveProperty('timings');
    for (const bad of ['99', '30001', '1.5', '2s', '-600', 'abc']) {
      expect(() => kioskOptionsFromEnvironment({ KIOSK_ONLINE_WAIT_MS: bad }, '/d'), bad).toThrow(`KIOSK_ONLINE_WAIT_MS must be whole milliseconds from 100 to 30000, not "${bad}"`);
    }
  });

  it('KIOSK_PEERS lists the other gates of the site as host:port; KIOSK_PEER_PORT is the port listened on, 4310 by default', () => {
    expect(kioskOptionsFromEnvironment({ KIOSK_PEERS: ' 10.0.4.11:4310, gate-2.estate.lan:4311,[fd00::12]:4310 ,', KIOSK_PEER_PORT: '4400' }, '/d').peers).toEqual({
      port: 4400,
      addresses: ['10.0.4.11:4310', 'gate-2.estate.lan:4311', '[fd00::12]:4310'],
      discovery: true,
    });
    expect(kioskOptionsFromEnvironment({ KIOSK_PEER_PORT: '0' }, '/d').peers).toEqual({ port: 0, addresses: [], discovery: true });
    for (const bad of ['70000', '-1', '43.1', 'abc']) expect(() => kioskOptionsFromEnvironment({ KIOSK_PEER_PORT: bad }, '/d'), bad).toThrow(`KIOSK_PEER_PORT must be a TCP port, not "${bad}"`);
    expect(kioskOptionsFromEnvironment({ KIOSK_PEER_DISCOVERY: '0' }, '/d').peers).toEqual({ port: 4310, addresses: [], discovery: false });
    expect(() => kioskOptionsFromEnvironment({ KIOSK_PEER_DISCOVERY: 'yes' }, '/d')).toThrow('KIOSK_PEER_DISCOVERY must be 1 (mDNS on) or 0 (off), not "yes"');
    expect(() => kioskOptionsFromEnvironment({ KIOSK_PEERS: '10.0.4.11' }, '/d')).toThrow('KIOSK_PEERS: "10.0.4.11" is not host:port');
    expect(() => kioskOptionsFromEnvironment({ KIOSK_PEERS: '10.0.4.11:0' }, '/d')).toThrow('KIOSK_PEERS: "10.0.4.11:0" has no usable port');
  });

  it('KIOSK_PORT is a TCP port, 4300 by default', () => {
    expect(kioskPortFromEnvironment({})).toBe(4300);
    expect(kioskPortFromEnvironment({ KIOSK_PORT: '0' })).toBe(0);
    expect(() => kioskPortFromEnvironment({ KIOSK_PORT: '70000' })).toThrow('KIOSK_PORT must be a TCP port, not "70000"');
  });
});
