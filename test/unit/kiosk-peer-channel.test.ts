import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openSecureChannel, PeerRefused, type OwnIdentity, type SecureChannel } from '../../electron/core/peers/channel.ts';
import { checkKioskCertificate, rawPublicKeyOf, signKioskCertificate } from '../../shared/node/kiosk-certificate.ts';

/**
 * The peer channel between two kiosks (issue #49; docs/security.md, "The peer channel"), over
 * real TCP on loopback: both ends prove the key their certificate names, a certificate of
 * another site or a key the kiosk does not hold is refused, and a frame altered or replayed on
 * the wire closes the connection.
 */
const NOW = Date.parse('2026-11-29T10:00:00Z');
const ORG = 'org_01JD7ZK3Q0C7W5N2Y8S4V6X9AB';
const K = { A1: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9A1', A2: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9A2', B1: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9B1' };

function authority(siteId: string, kid: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { kid, siteId, privateKey, view: { kid, site_id: siteId, public_key: rawPublicKeyOf(publicKey) } };
}

function kiosk(kioskId: string, by: ReturnType<typeof authority>, keyOverride?: KeyObject): OwnIdentity {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const claims = {
    v: 1 as const,
    kid: by.kid,
    organization_id: ORG,
    environment: 'live' as const,
    site_id: by.siteId,
    kiosk_id: kioskId,
    public_key: rawPublicKeyOf(publicKey),
    issued_at: new Date(NOW - 3_600_000).toISOString(),
    expires_at: new Date(NOW + 20 * 3_600_000).toISOString(),
  };
  return { kioskId, certificate: signKioskCertificate(claims, by.privateKey), privateKey: keyOverride ?? privateKey };
}

const siteA = authority('site_A', 'ka_AAAAAAAA');
const siteB = authority('site_B', 'ka_BBBBBBBB');
const trustOf = (by: ReturnType<typeof authority>) => (certificate: string) =>
  checkKioskCertificate(certificate, { authorities: [by.view], organizationId: ORG, environment: 'live', siteId: by.siteId }, NOW);

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const done of cleanup.splice(0)) done();
});

/** One TCP connection on loopback: the accepted end and the dialled end. */
async function socketPair(): Promise<{ server: Server; accepted: Promise<Socket>; dialled: Socket }> {
  const server = createServer();
  const accepted = new Promise<Socket>((done) => server.once('connection', done));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const dialled = connect({ host: '127.0.0.1', port: (server.address() as { port: number }).port });
  await new Promise((done) => dialled.once('connect', done));
  cleanup.push(() => {
    dialled.destroy();
    server.close();
  });
  return { server, accepted, dialled };
}

async function handshake(initiator: OwnIdentity, responder: OwnIdentity, trustInitiator = trustOf(siteA), trustResponder = trustOf(siteA)) {
  const { accepted, dialled } = await socketPair();
  const socket = await accepted;
  cleanup.push(() => socket.destroy());
  return Promise.allSettled([openSecureChannel(dialled, 'initiator', initiator, trustInitiator), openSecureChannel(socket, 'responder', responder, trustResponder)]);
}

const messages = (channel: SecureChannel) => {
  const got: unknown[] = [];
  channel.on('message', (message) => got.push(message));
  channel.start();
  return got;
};

describe('the peer channel', () => {
  it('two kiosks of one site prove themselves to each other and exchange messages both ways', async () => {
    const [a, b] = await handshake(kiosk(K.A1, siteA), kiosk(K.A2, siteA));
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('fulfilled');
    const initiator = (a as PromiseFulfilledResult<SecureChannel>).value;
    const responder = (b as PromiseFulfilledResult<SecureChannel>).value;
    expect(initiator.peer.kioskId).toBe(K.A2);
    expect(responder.peer).toMatchObject({ kioskId: K.A1, claims: { site_id: 'site_A' } });
    const atResponder = messages(responder);
    const atInitiator = messages(initiator);
    for (let i = 0; i < 3; i++) initiator.send({ n: i, visitor: 'Musa Bello' });
    responder.send({ back: true });
    await expect.poll(() => atResponder.length).toBe(3);
    await expect.poll(() => atInitiator).toEqual([{ back: true }]);
    expect(atResponder).toEqual([0, 1, 2].map((n) => ({ n, visitor: 'Musa Bello' })));
  });

  it("a kiosk of another site is refused by both ends (its authority is not this site's)", async () => {
    const [a, b] = await handshake(kiosk(K.B1, siteB), kiosk(K.A1, siteA), trustOf(siteB), trustOf(siteA));
    // The responder proves itself first; the initiator (site B) refuses it.
    expect(a).toMatchObject({ status: 'rejected', reason: expect.any(PeerRefused) });
    expect(((a as PromiseRejectedResult).reason as PeerRefused).reason).toMatch(/certificate does not hold here \(unknown_authority\)/);
    expect(b.status).toBe('rejected');
  });

  it('a kiosk presenting a certificate whose key it does not hold is refused', async () => {
    const stolen = kiosk(K.A2, siteA, generateKeyPairSync('ed25519').privateKey);
    const [a, b] = await handshake(stolen, kiosk(K.A1, siteA));
    expect(((b as PromiseRejectedResult).reason as PeerRefused).reason).toMatch(/does not hold the key its certificate names/);
    // The impostor spoke last: its end opens, and is closed at once by the kiosk it lied to.
    const impostor = (a as PromiseFulfilledResult<SecureChannel>).value;
    impostor.start();
    await expect.poll(() => impostor.isOpen).toBe(false);
  });

  it('a client that is no kiosk at all is cut off', async () => {
    const { accepted, dialled } = await socketPair();
    const socket = await accepted;
    const opening = openSecureChannel(socket, 'responder', kiosk(K.A1, siteA), trustOf(siteA));
    const head = Buffer.alloc(4);
    const body = Buffer.from('GET / HTTP/1.1\r\n\r\n');
    head.writeUInt32BE(body.length);
    dialled.write(Buffer.concat([head, body]));
    await expect(opening).rejects.toMatchObject({ reason: expect.stringMatching(/not a Tsaro kiosk/) });
  });

  it('a frame replayed on the wire does not decrypt: the channel closes', async () => {
    const { accepted, dialled } = await socketPair();
    const socket = await accepted;
    // Everything the initiator writes after the handshake is copied, to be written again.
    const written: Buffer[] = [];
    const write = dialled.write.bind(dialled);
    const [initiator, responder] = await Promise.all([
      openSecureChannel(dialled, 'initiator', kiosk(K.A1, siteA), trustOf(siteA)),
      openSecureChannel(socket, 'responder', kiosk(K.A2, siteA), trustOf(siteA)),
    ]);
    dialled.write = ((chunk: Buffer) => {
      written.push(Buffer.from(chunk));
      return write(chunk);
    }) as typeof dialled.write;
    const got = messages(responder);
    const closed = new Promise<string>((done) => responder.once('close', done));
    initiator.send({ grant: 1 });
    await expect.poll(() => got.length).toBe(1);
    write(written[0]!);
    expect(await closed).toMatch(/does not decrypt/);
    expect(got).toEqual([{ grant: 1 }]);
  });
});
