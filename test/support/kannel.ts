/**
 * A real Kannel 1.4.5 (Debian's `bearerbox` and `smsbox`) with `fakesmsc` from kannel-extras
 * standing in for the operator's SMSC, for tests of texts sent through `/cgi-bin/sendsms`.
 *
 * What this Kannel does, seen here (Debian 1.4.5, smsc = fake):
 * - sendsms answers HTTP 202 `0: Accepted for delivery` while fakesmsc is connected, and HTTP 202
 *   `3: Queued for later delivery` while it is not; a queued text goes out within a second of
 *   fakesmsc connecting again (no `sms-resend-freq` wait).
 * - With `dlr-mask=31`, Kannel calls the dlr-url twice per text, both within ~50 ms of the text
 *   reaching fakesmsc: status 8 (accepted by the SMSC, `%A` = `ACK/`) and 1 (delivered, `%A`
 *   empty). smsbox makes the two calls side by side, so 1 may arrive before 8 (seen for a long
 *   text). The "delivered" one is made up by Kannel's fake SMSC driver itself, not by fakesmsc;
 *   nothing here ever reports 2 (failed), 4 (queued on SMSC) or 16 (rejected by SMSC). A text
 *   split in parts (see below) gets one 8 and one 1, not one per part.
 * - Timings: startKannel ~0.35 s; a text reaches fakesmsc ~0.1 s after sendsms answers;
 *   stopGateway ~0.1-0.2 s (both boxes end cleanly on SIGTERM); startGateway ~0.2-0.3 s.
 * - A text queued while fakesmsc is down survives a bearerbox restart (`store-type = file`) and
 *   arrives once, with both delivery reports, when fakesmsc connects to the new bearerbox.
 * - A text longer than one SMS goes out as concatenated parts (`concatenation = true`, at most
 *   `max-messages = 10`, the rest is cut). `received()` joins the parts into one text, as a phone
 *   shows them.
 * - Text the GSM alphabet lacks (₦, ï) reaches the phone as `?` unless the sender asks for
 *   `coding=2` (UCS-2); `received()` shows what arrived, `?` included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { SYSTEM_TMP } from './temp.ts';

export interface ReceivedText {
  from: string;
  to: string;
  text: string;
  /** The SMS parts it came in, as fakesmsc got them: 1, or the concatenation header's total. */
  parts: number;
  /** Whether it came as UCS-2 (`coding=2`): the line said `ucs-2`, or its parts' bytes were UTF-16. */
  ucs2: boolean;
}

export interface KannelRig {
  /** http://127.0.0.1:<sendsms-port>/cgi-bin/sendsms */
  sendsmsUrl: string;
  username: string;
  password: string;
  /** Messages fakesmsc received so far, parsed from its output, in order. */
  received(): ReceivedText[];
  /** Waits until `count` messages were received (default timeout 20 s), returns received(). */
  waitForReceived(count: number, timeoutMs?: number): Promise<ReceivedText[]>;
  /**
   * Stop / start only bearerbox+smsbox (the gateway), keeping fakesmsc's record; start again uses
   * the SAME ports and the same store-file so queued messages survive. While the gateway is down
   * the sendsms port refuses connections, as a Kannel that is down does.
   */
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  /**
   * Stop / start only fakesmsc (the SMSC): while it is down Kannel answers "3: Queued for later
   * delivery" and delivers when it returns. `startSmsc()` while the gateway is down only marks the
   * SMSC as up: it connects when `startGateway()` runs (fakesmsc cannot wait for a bearerbox).
   */
  stopSmsc(): Promise<void>;
  startSmsc(): Promise<void>;
  /** Stops everything (by PID, never by name) and removes its temp folder. */
  stop(): Promise<void>;
}

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const FAKESMSC = '/usr/lib/kannel/test/fakesmsc';

export function kannelAvailable(): { available: boolean; reason?: string } {
  const missing = [
    ...[BEARERBOX, SMSBOX].filter((path) => !existsSync(path)).map((path) => `${path} (apt-get install -y kannel)`),
    ...(existsSync(FAKESMSC) ? [] : [`${FAKESMSC} (apt-get install -y kannel-extras)`]),
  ];
  return missing.length ? { available: false, reason: `not found: ${missing.join(', ')}` } : { available: true };
}

export async function startKannel(): Promise<KannelRig> {
  const availability = kannelAvailable();
  if (!availability.available) throw new Error(`Kannel is not installed: ${availability.reason}`);
  // The machine's temporary folder, not TMPDIR: a browser stack beside this one points TMPDIR at a
  // folder it removes when it ends, which would take the store-file with it (test/support/temp.ts).
  const dir = mkdtempSync(join(SYSTEM_TMP, 'kannel-'));
  const ports = await distinctFreePorts(4);
  const [adminPort, smsboxPort, smscPort, sendsmsPort] = ports as [number, number, number, number];
  const adminPassword = randomBytes(8).toString('hex');
  const username = 'tsaro';
  const password = randomBytes(8).toString('hex');
  const conf = join(dir, 'kannel.conf');
  writeFileSync(conf, kannelConf({ dir, adminPort, adminPassword, smsboxPort, smscPort, sendsmsPort, username, password }));

  const sendsmsUrl = `http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms`;
  const statusUrl = `http://127.0.0.1:${adminPort}/status.txt?password=${adminPassword}`;
  const phones = new PhoneRecord();
  let bearerbox: Box | undefined;
  let smsbox: Box | undefined;
  let fakesmsc: Box | undefined;
  // Whether the SMSC should be up: fakesmsc exits when its bearerbox goes, and comes back with it.
  let smscWanted = true;
  let stopped: Promise<void> | undefined;

  const status = async () => {
    try {
      const res = await fetch(statusUrl, { signal: AbortSignal.timeout(1_000) });
      return res.ok ? await res.text() : undefined;
    } catch {
      return undefined;
    }
  };
  // `(online 13s, ...` on the SMSC's line; `(re-connecting)` and the like while fakesmsc is away.
  const smscOnline = (text: string | undefined) => /^\s*fake\[fake\].*\(online /m.test(text ?? '');

  async function connectSmsc() {
    // Only bearerbox's admin status tells when fakesmsc is connected: a probe of the fake SMSC's
    // port would itself be taken for fakesmsc and handed the queued texts, which would be lost.
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (!fakesmsc || fakesmsc.exited) {
        // `-m 0`: it sends no message of its own, ever, and runs until its bearerbox goes (`-i`
        // then does not matter). It gives up at once when bearerbox is not listening yet: start
        // it again until it stays.
        fakesmsc = launch(dir, 'fakesmsc', FAKESMSC, ['-H', '127.0.0.1', '-r', String(smscPort), '-i', '3600', '-m', '0', '100 200 text unused'], (line) =>
          phones.line(line),
        );
        phones.connected();
      }
      if (smscOnline(await status())) return;
      await sleep(100);
    }
    throw new Error(`fakesmsc did not connect to bearerbox on port ${smscPort}\n${fakesmsc?.tail() ?? ''}\n${bearerbox?.tail() ?? ''}`);
  }

  async function startGateway() {
    if (stopped) throw new Error('this Kannel rig was stopped');
    if (!bearerbox || bearerbox.exited) {
      bearerbox = launch(dir, 'bearerbox', BEARERBOX, ['-v', '2', conf]);
      await until(`bearerbox (admin port ${adminPort})`, async () => (await status()) !== undefined, bearerbox);
    }
    if (smscWanted) await connectSmsc();
    if (!smsbox || smsbox.exited) {
      smsbox = launch(dir, 'smsbox', SMSBOX, ['-v', '2', conf]);
      const box = smsbox;
      await until(`smsbox (sendsms port ${sendsmsPort})`, async () => /smsbox:.*\(on-line /.test((await status()) ?? '') && (await answers(sendsmsUrl)), box);
    }
  }

  async function stopGateway() {
    // smsbox first: with bearerbox gone first it would keep reconnecting to the next one.
    await smsbox?.end();
    await bearerbox?.end();
    // It exits on its own when bearerbox closes the connection; this makes sure.
    await fakesmsc?.end();
    phones.flush();
  }

  async function startSmsc() {
    smscWanted = true;
    if (bearerbox && !bearerbox.exited) await connectSmsc();
  }

  async function stopSmsc() {
    smscWanted = false;
    await fakesmsc?.end();
    phones.flush();
    // Until bearerbox has seen the connection close it still takes texts as sent.
    if (bearerbox && !bearerbox.exited) {
      const box = bearerbox;
      await until('bearerbox to see fakesmsc gone', async () => !smscOnline(await status()), box);
    }
  }

  async function stop() {
    stopped ??= (async () => {
      await smsbox?.end();
      await fakesmsc?.end();
      await bearerbox?.end();
      phones.flush();
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopped;
  }

  try {
    await startGateway();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    sendsmsUrl,
    username,
    password,
    received: () => phones.texts(),
    async waitForReceived(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (phones.texts().length < count && Date.now() < deadline) await sleep(50);
      const texts = phones.texts();
      if (texts.length < count) {
        throw new Error(`fakesmsc received ${texts.length} of ${count} texts in ${timeoutMs} ms:\n${texts.map((t) => `  ${t.from} -> ${t.to}: ${t.text}`).join('\n')}`);
      }
      return texts;
    },
    stopGateway,
    startGateway,
    stopSmsc,
    startSmsc,
    stop,
  };
}

interface ConfOptions {
  dir: string;
  adminPort: number;
  adminPassword: string;
  smsboxPort: number;
  smscPort: number;
  sendsmsPort: number;
  username: string;
  password: string;
}

/**
 * Every listener on 127.0.0.1 only (Kannel's default is every interface). `store-type = file`
 * keeps queued texts across a bearerbox restart; the store is written as each text is queued,
 * so even a SIGKILLed bearerbox keeps them.
 */
function kannelConf(o: ConfOptions): string {
  return `group = core
admin-port = ${o.adminPort}
admin-interface = 127.0.0.1
admin-password = ${o.adminPassword}
admin-allow-ip = 127.0.0.1
smsbox-port = ${o.smsboxPort}
smsbox-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
dlr-storage = internal
store-type = file
store-location = "${o.dir}/kannel.store"
log-file = "${o.dir}/bearerbox.log"
log-level = 1

group = smsc
smsc = fake
smsc-id = fake
port = ${o.smscPort}
our-host = 127.0.0.1
connect-allow-ip = 127.0.0.1

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = ${o.sendsmsPort}
sendsms-interface = 127.0.0.1
log-file = "${o.dir}/smsbox.log"
log-level = 1

group = sendsms-user
username = ${o.username}
password = ${o.password}
max-messages = 10
concatenation = true

group = sms-service
keyword = default
text = "This number does not take replies."
`;
}

/** A child process of the rig, its stderr and stdout kept in `<dir>/<name>.out` for `tail()`. */
interface Box {
  readonly exited: boolean;
  /** SIGTERM, and SIGKILL when it has not exited 3 s later; resolves once it has exited. */
  end(): Promise<void>;
  /** The end of its output, for an error message. */
  tail(): string;
}

function launch(dir: string, name: string, command: string, args: string[], onLine?: (line: Buffer) => void): Box {
  const outPath = join(dir, `${name}.out`);
  const out = openSync(outPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { cwd: dir, detached: false, stdio: ['ignore', onLine ? 'pipe' : out, onLine ? 'pipe' : out] });
  } finally {
    closeSync(out);
  }
  LIVE.add(child);
  watchExit();
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    const done = () => {
      exited = true;
      LIVE.delete(child);
      resolve();
    };
    child.once('exit', done);
    child.once('error', done);
  });
  if (onLine) {
    // fakesmsc logs what it receives to stderr; both streams are read so nothing depends on which.
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      let rest = Buffer.alloc(0);
      stream.on('data', (chunk: Buffer) => {
        writeFileSync(outPath, chunk, { flag: 'a' });
        rest = Buffer.concat([rest, chunk]);
        for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
          onLine(rest.subarray(0, nl));
          rest = rest.subarray(nl + 1);
        }
      });
    }
  }
  return {
    get exited() {
      return exited;
    },
    async end() {
      if (exited) return;
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exit;
      clearTimeout(killed);
    },
    tail() {
      try {
        return `--- ${name} ---\n${readFileSync(outPath, 'utf8').split('\n').slice(-20).join('\n')}`;
      } catch {
        return `--- ${name}: no output ---`;
      }
    },
  };
}

/**
 * Children still running when the test process exits without `stop()` (a crash, a timeout):
 * killed then, so no bearerbox is left holding its ports for the next run.
 */
const LIVE = new Set<ChildProcess>();
let watching = false;
function watchExit() {
  if (watching) return;
  watching = true;
  process.once('exit', () => {
    for (const child of LIVE) child.kill('SIGKILL');
  });
}

/**
 * What fakesmsc printed, as the phones would show it. Each line Kannel's fake SMSC writes becomes
 * `Got message N: <FROM TO TYPE BODY>` in fakesmsc's log, TYPE being
 * - `text`: BODY as is (UTF-8). A newline in the text ends the line, so the next ones arrive as
 *   further `Got message` lines that do not start with `FROM TO TYPE`: they are joined back on;
 * - `ucs-2`: url-encoded UTF-16BE (`coding=2`);
 * - `data`: url-encoded bytes (`coding=1`);
 * - `udh`: `udh <url-encoded UDH> data <url-encoded bytes>`, here the parts of a long text
 *   (concatenation), put together once all have arrived. The line does not say whether the bytes
 *   are UTF-8 or UCS-2: UCS-2 is assumed when they hold a NUL or are not valid UTF-8.
 * A sender with a space in it cannot be told apart from the receiver: use one without.
 */
class PhoneRecord {
  private readonly done: ReceivedText[] = [];
  /** The last `text` line: kept open a moment for the lines of the same text. */
  private open: ReceivedText | undefined;
  /** The last text sent as `text`, already in `done`: where a line that comes late belongs. */
  private lastText: ReceivedText | undefined;
  private openTimer: NodeJS.Timeout | undefined;
  private readonly parts = new Map<string, { total: number; parts: Map<number, Buffer> }>();

  texts(): ReceivedText[] {
    return this.done.map((text) => ({ ...text }));
  }

  /** A new fakesmsc: no line of a text before it continues on its output. */
  connected() {
    this.flush();
    this.lastText = undefined;
  }

  flush() {
    clearTimeout(this.openTimer);
    if (this.open) this.done.push(this.open);
    this.lastText = this.open ?? this.lastText;
    this.open = undefined;
  }

  line(raw: Buffer) {
    const match = /Got message \d+: <(.*)>\r?$/s.exec(raw.toString('utf8'));
    if (!match) return;
    const body = match[1] as string;
    const fields = /^(\S+) (\S+) (text|data|ucs-2|udh)(?: (.*))?$/s.exec(body);
    if (!fields) {
      const text = this.open ?? this.lastText;
      if (text) text.text += `\n${body}`;
      if (this.open) this.holdOpen();
      return;
    }
    this.flush();
    this.lastText = undefined;
    const [, from = '', to = '', type, rest = ''] = fields;
    if (type === 'text') {
      this.open = { from, to, text: rest, parts: 1, ucs2: false };
      this.holdOpen();
    } else if (type === 'ucs-2') {
      this.done.push({ from, to, text: ucs2(urlDecode(rest)), parts: 1, ucs2: true });
    } else if (type === 'data') {
      this.done.push({ from, to, ...guessText(urlDecode(rest)), parts: 1 });
    } else {
      const [udh = '', , data = ''] = rest.split(' ');
      this.part(from, to, urlDecode(udh), urlDecode(data));
    }
  }

  /** fakesmsc logs the lines of one text together: 100 ms of quiet means it has ended. */
  private holdOpen() {
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => this.flush(), 100);
    this.openTimer.unref();
  }

  private part(from: string, to: string, udh: Buffer, data: Buffer) {
    const concat = concatenation(udh);
    if (!concat) {
      this.done.push({ from, to, ...guessText(data), parts: 1 });
      return;
    }
    const key = `${from} ${to} ${concat.ref} ${concat.total}`;
    const entry = this.parts.get(key) ?? { total: concat.total, parts: new Map<number, Buffer>() };
    entry.parts.set(concat.seq, data);
    this.parts.set(key, entry);
    if (entry.parts.size < entry.total) return;
    this.parts.delete(key);
    const whole = Buffer.concat([...entry.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part));
    this.done.push({ from, to, ...guessText(whole), parts: concat.total });
  }
}

/** The concatenation element of a UDH (8-bit reference, IEI 0; 16-bit, IEI 8), if it has one. */
function concatenation(udh: Buffer): { ref: number; total: number; seq: number } | undefined {
  for (let at = 1; at + 1 < udh.length && at <= (udh[0] ?? 0); at += 2 + (udh[at + 1] ?? 0)) {
    const iei = udh[at];
    const el = at + 2;
    if (iei === 0 && el + 2 < udh.length) return { ref: udh[el] ?? 0, total: udh[el + 1] ?? 1, seq: udh[el + 2] ?? 1 };
    if (iei === 8 && el + 3 < udh.length) return { ref: ((udh[el] ?? 0) << 8) | (udh[el + 1] ?? 0), total: udh[el + 2] ?? 1, seq: udh[el + 3] ?? 1 };
  }
  return undefined;
}

/** Kannel's `octstr_url_encode`: `%XX` for a byte, `+` for a space. */
function urlDecode(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '+') bytes.push(32);
    else if (c === '%' && /^[0-9a-f]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes);
}

function ucs2(bytes: Buffer): string {
  const even = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return even.swap16().toString('utf16le');
}

function guessText(bytes: Buffer): { text: string; ucs2: boolean } {
  if (!bytes.includes(0)) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), ucs2: false };
    } catch {
      // not UTF-8: UCS-2, or Latin-1 when the length is odd
    }
  }
  return bytes.length % 2 === 0 ? { text: ucs2(bytes), ucs2: true } : { text: bytes.toString('latin1'), ucs2: false };
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Any HTTP answer at all (smsbox answers 4xx to a sendsms without credentials). */
async function answers(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** Asks `ready` every 100 ms for 15 s; fails at once, with its output, when `box` exits. */
async function until(what: string, ready: () => Promise<boolean>, box: Box): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (box.exited) throw new Error(`${what} exited while starting\n${box.tail()}`);
    if (await ready()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}\n${box.tail()}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A Tsaro server's settings to text through this rig on `port`: PUBLIC_URL is where Kannel
 * reports delivery, so the server must listen on that port (not 0).
 */
export function smsConfigOf(rig: KannelRig, port: number): Record<string, string> {
  return {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SMS_GATEWAY: 'kannel',
    KANNEL_SENDSMS_URL: rig.sendsmsUrl,
    KANNEL_USERNAME: rig.username,
    KANNEL_PASSWORD: rig.password,
  };
}
