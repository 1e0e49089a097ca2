import {
  createCipheriv,
  createDecipheriv,
  createHash,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  sign,
  verify,
  createPublicKey,
  type KeyObject,
} from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { z } from 'zod';
import { ed25519PublicKey, type CertificateCheck } from '../../../shared/node/kiosk-certificate.ts';
import type { KioskCertificateClaims } from '../../../shared/schemas/kiosks.ts';

/**
 * The peer channel between two kiosks of one site (issue #49; docs/security.md, "The peer
 * channel"): a SIGMA-style handshake over TCP, then AES-256-GCM frames.
 *
 * 1. initiator → responder: `{v, nonce, eph}` (a fresh X25519 public key and 32 random bytes);
 * 2. responder → initiator: the same. Both now hold the transcript hash
 *    T = SHA-256("tsaro-peer-v1" ‖ hello₁ ‖ hello₂) and, by HKDF-SHA-256 over the X25519 secret
 *    with T as salt, one AES-256-GCM key per direction;
 * 3. each side sends, encrypted, its kiosk id, its certificate and an Ed25519 signature by its
 *    certified key over "tsaro-peer-auth", its role, T and the certificate's hash: the responder
 *    first, the initiator once the responder has proven itself.
 *
 * A side that fails to prove its certificate's key, or whose certificate is not of this kiosk's
 * site (checked by the caller's `trust`), is cut off. Frames are numbered per direction and the
 * number is the GCM nonce, never sent: a frame replayed, dropped or reordered fails to decrypt and
 * the connection closes.
 */

const PROTOCOL = 'tsaro-peer-v1';
/** A frame's length prefix is 4 bytes; nothing a kiosk sends comes near this. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
const HANDSHAKE_TIMEOUT_MS = 5_000;

export type PeerRole = 'initiator' | 'responder';

/** What this kiosk proves itself with; null while it has no certificate yet (then it talks to no peer). */
export interface OwnIdentity {
  kioskId: string;
  certificate: string;
  privateKey: KeyObject;
}

/** The peer as proven: its kiosk id and its certificate's claims. */
export interface ProvenPeer {
  kioskId: string;
  claims: KioskCertificateClaims;
}

export class PeerRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const Hello = z.strictObject({ v: z.literal(1), nonce: z.string().length(43), eph: z.string().length(43) });
const Auth = z.strictObject({ kiosk_id: z.string().min(1).max(100), certificate: z.string().min(1).max(4000), signature: z.string().min(1).max(200) });

/** Splits a TCP stream into frames: a 4-byte big-endian length, then that many bytes. */
class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const frames: Buffer[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) throw new PeerRefused(`a frame of ${length} bytes`);
      if (this.buffered.length < 4 + length) break;
      frames.push(this.buffered.subarray(4, 4 + length));
      this.buffered = this.buffered.subarray(4 + length);
    }
    return frames;
  }
}

function frame(payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

/** One direction's AES-256-GCM: the frame's number is its nonce, counted on both sides. */
class Sealer {
  private counter = 0n;
  constructor(
    private readonly key: Buffer,
    private readonly label: string,
  ) {}
  private nonce(): Buffer {
    const nonce = Buffer.alloc(12);
    nonce.writeBigUInt64BE(this.counter, 4);
    this.counter++;
    return nonce;
  }
  seal(plain: Buffer): Buffer {
    const cipher = createCipheriv('aes-256-gcm', this.key, this.nonce());
    cipher.setAAD(Buffer.from(this.label));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([body, cipher.getAuthTag()]);
  }
  open(sealed: Buffer): Buffer {
    if (sealed.length < 16) throw new PeerRefused('a frame too short to be sealed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, this.nonce());
    decipher.setAAD(Buffer.from(this.label));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    } catch {
      throw new PeerRefused('a frame that does not decrypt (altered, replayed or out of order)');
    }
  }
}

const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const x25519PublicKey = (raw: Buffer): KeyObject => createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
const rawX25519 = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);

/** The text each side signs: its role, the transcript, and the certificate it presents. */
export function authText(role: PeerRole, transcript: Buffer, certificate: string): Buffer {
  return Buffer.from(`tsaro-peer-auth\n${role}\n${transcript.toString('hex')}\n${createHash('sha256').update(certificate).digest('hex')}`);
}

/**
 * A connection whose other end has proven itself a kiosk of this site. Messages are JSON; each
 * is one sealed frame. `message` and `close` are its events.
 */
export class SecureChannel extends EventEmitter<{ message: [unknown]; close: [string] }> {
  private closed = false;
  constructor(
    private readonly socket: Socket,
    private readonly reader: FrameReader,
    private readonly sending: Sealer,
    private readonly receiving: Sealer,
    readonly peer: ProvenPeer,
    readonly role: PeerRole,
    /** Frames that came with the last of the handshake, read once `start` is called. */
    private readonly early: Buffer[],
  ) {
    super();
  }

  /** Starts reading messages: call once the listeners are attached. */
  start(): void {
    const receive = (payloads: Buffer[]) => {
      try {
        for (const payload of payloads) {
          if (this.closed) return;
          this.emit('message', JSON.parse(this.receiving.open(payload).toString('utf8')));
        }
      } catch (error) {
        this.close(error instanceof PeerRefused ? error.reason : `an unreadable message (${(error as Error).message})`);
      }
    };
    this.socket.on('data', (chunk: Buffer) => {
      try {
        receive(this.reader.push(chunk));
      } catch (error) {
        this.close(error instanceof PeerRefused ? error.reason : (error as Error).message);
      }
    });
    this.socket.on('close', () => this.close('the connection closed'));
    this.socket.on('error', (error) => this.close(error.message));
    receive(this.early.splice(0));
    this.socket.resume();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  send(message: unknown): void {
    if (this.closed) return;
    this.socket.write(frame(this.sending.seal(Buffer.from(JSON.stringify(message)))));
  }

  close(why = 'closed here'): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.emit('close', why);
  }
}

/** Reads frames off a socket during the handshake, one at a time. */
function frameQueue(socket: Socket, reader: FrameReader): { next(): Promise<Buffer>; detach(): Buffer[] } {
  const queued: Buffer[] = [];
  let waiting: { done: (frame: Buffer) => void; fail: (error: Error) => void } | undefined;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure = error;
    waiting?.fail(error);
    waiting = undefined;
  };
  const onData = (chunk: Buffer) => {
    try {
      for (const payload of reader.push(chunk)) {
        if (waiting) {
          const w = waiting;
          waiting = undefined;
          w.done(payload);
        } else queued.push(payload);
      }
    } catch (error) {
      fail(error as Error);
    }
  };
  const onClose = () => fail(new PeerRefused('the connection closed during the handshake'));
  const onError = (error: Error) => fail(new PeerRefused(error.message));
  socket.on('data', onData);
  socket.on('close', onClose);
  socket.on('error', onError);
  return {
    next() {
      if (queued.length) return Promise.resolve(queued.shift()!);
      if (failure) return Promise.reject(failure);
      return new Promise((done, failWith) => (waiting = { done, fail: failWith }));
    },
    /** Stops reading (the socket is paused) and answers the frames already read past the handshake. */
    detach() {
      socket.pause();
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      return queued.splice(0);
    },
  };
}

/**
 * Runs the handshake on a fresh socket. `trust` checks the peer's certificate (site, authority,
 * dates: `checkKioskCertificate` with this kiosk's own authority). Answers the channel, or throws
 * PeerRefused (and destroys the socket) with why.
 */
export async function openSecureChannel(socket: Socket, role: PeerRole, own: OwnIdentity, trust: (certificate: string) => CertificateCheck): Promise<SecureChannel> {
  // Small frames, each awaited by a guard: Nagle's algorithm with delayed ACKs would hold an answer ~40 ms.
  socket.setNoDelay(true);
  const reader = new FrameReader();
  const frames = frameQueue(socket, reader);
  const timer = setTimeout(() => socket.destroy(new PeerRefused('no handshake within 5 s')), HANDSHAKE_TIMEOUT_MS);
  try {
    const ephemeral = generateKeyPairSync('x25519');
    const myHello = Buffer.from(JSON.stringify({ v: 1, nonce: randomBytes(32).toString('base64url'), eph: rawX25519(ephemeral.publicKey).toString('base64url') }));
    const read = async () => frames.next();
    let theirHello: Buffer;
    if (role === 'initiator') {
      socket.write(frame(myHello));
      theirHello = await read();
    } else {
      theirHello = await read();
      socket.write(frame(myHello));
    }
    let theirs: z.infer<typeof Hello>;
    try {
      theirs = Hello.parse(JSON.parse(theirHello.toString('utf8')));
    } catch {
      throw new PeerRefused('not a Tsaro kiosk (its first message is not a peer hello)');
    }
    const [first, second] = role === 'initiator' ? [myHello, theirHello] : [theirHello, myHello];
    const transcript = createHash('sha256').update(PROTOCOL).update(first).update(second).digest();
    let secret: Buffer;
    try {
      secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: x25519PublicKey(Buffer.from(theirs.eph, 'base64url')) });
    } catch {
      throw new PeerRefused('an ephemeral key that is not an X25519 key');
    }
    const keys = Buffer.from(hkdfSync('sha256', secret, transcript, `${PROTOCOL} keys`, 64));
    const toResponder = new Sealer(keys.subarray(0, 32), `${PROTOCOL} initiator->responder`);
    const toInitiator = new Sealer(keys.subarray(32, 64), `${PROTOCOL} responder->initiator`);
    const [sending, receiving] = role === 'initiator' ? [toResponder, toInitiator] : [toInitiator, toResponder];
    const theirRole: PeerRole = role === 'initiator' ? 'responder' : 'initiator';

    const sendAuth = () => {
      const signature = sign(null, authText(role, transcript, own.certificate), own.privateKey).toString('base64url');
      socket.write(frame(sending.seal(Buffer.from(JSON.stringify({ kiosk_id: own.kioskId, certificate: own.certificate, signature })))));
    };
    const readAuth = async (): Promise<ProvenPeer> => {
      let auth: z.infer<typeof Auth>;
      try {
        auth = Auth.parse(JSON.parse(receiving.open(await read()).toString('utf8')));
      } catch (error) {
        throw error instanceof PeerRefused ? error : new PeerRefused('an unreadable proof of identity');
      }
      const check = trust(auth.certificate);
      if (!check.ok) throw new PeerRefused(`its certificate does not hold here (${check.reason})`);
      if (check.claims.kiosk_id !== auth.kiosk_id) throw new PeerRefused(`its certificate is another kiosk's (${check.claims.kiosk_id}, not ${auth.kiosk_id})`);
      if (auth.kiosk_id === own.kioskId) throw new PeerRefused('it is this kiosk itself');
      let signed = false;
      try {
        signed = verify(null, authText(theirRole, transcript, auth.certificate), ed25519PublicKey(check.claims.public_key), Buffer.from(auth.signature, 'base64url'));
      } catch {
        signed = false;
      }
      if (!signed) throw new PeerRefused('it does not hold the key its certificate names (bad signature over the handshake)');
      return { kioskId: auth.kiosk_id, claims: check.claims };
    };

    let peer: ProvenPeer;
    if (role === 'responder') {
      sendAuth();
      peer = await readAuth();
    } else {
      peer = await readAuth();
      sendAuth();
    }
    const early = frames.detach();
    clearTimeout(timer);
    return new SecureChannel(socket, reader, sending, receiving, peer, role, early);
  } catch (error) {
    clearTimeout(timer);
    socket.destroy();
    throw error instanceof PeerRefused ? error : new PeerRefused((error as Error).message);
  }
}
