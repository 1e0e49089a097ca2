import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUse, emptyLedger, excessToReport, excessUses, mergeLedgers, ownerOf, usesOf, withUse, type Ledger, type UseRecord } from '../../electron/core/peers/shared-uses.ts';
import { checkProperty } from '../support/property.ts';

/**
 * The offline-use design across the gates of a site (docs/kiosk.md, "Offline across gates") as an
 * in-process model: up to five kiosks, passes of 1 to 3 uses, random partitions, restarts,
 * admissions and lazy gossip. The model is the network; the decisions are the kiosk's own code.
 */
type Action =
  | { kind: 'partition'; groups: number[] }
  | { kind: 'heal' }
  | { kind: 'restart'; kiosk: number }
  | { kind: 'admit'; kiosk: number; code: number }
  | { kind: 'gossip'; from: number; to: number };

const CODES = ['DEMO-AAAA', 'DEMO-BBBB', 'DEMO-CCCC'];
const kioskIdOf = (k: number) => `kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9A${k}`;

function scenario() {
  return fc.integer({ min: 2, max: 5 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      remaining: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: CODES.length, maxLength: CODES.length }),
      actions: fc.array(
        fc.oneof(
          { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: n, maxLength: n }).map((groups): Action => ({ kind: 'partition', groups })) },
          { weight: 1, arbitrary: fc.constant<Action>({ kind: 'heal' }) },
          { weight: 1, arbitrary: fc.integer({ min: 0, max: n - 1 }).map((kiosk): Action => ({ kind: 'restart', kiosk })) },
          { weight: 6, arbitrary: fc.record({ kiosk: fc.integer({ min: 0, max: n - 1 }), code: fc.integer({ min: 0, max: CODES.length - 1 }) }).map((a): Action => ({ kind: 'admit', ...a })) },
          { weight: 3, arbitrary: fc.record({ from: fc.integer({ min: 0, max: n - 1 }), to: fc.integer({ min: 0, max: n - 1 }) }).map((a): Action => ({ kind: 'gossip', ...a })) },
        ),
        { maxLength: 60 },
      ),
      // Each kiosk lists its group in an order of its own: the owner must not depend on it.
      orderSeed: fc.integer(),
    }),
  );
}

/** Runs the model; answers what the property checks. */
function run({ n, remaining, actions, orderSeed }: { n: number; remaining: number[]; actions: Action[]; orderSeed: number }) {
  const ledgers: Ledger[] = Array.from({ length: n }, () => emptyLedger());
  // Group labels: kiosks with the same label hear each other (a clique); a restarted kiosk is alone.
  let groups = Array.from({ length: n }, () => 0);
  let epoch = 0;
  const epochOf = Array.from({ length: n }, () => 0);
  /** Per epoch and code: the uses its members knew when they met, and the uses admitted since. */
  const knownAtStart = new Map<string, number>();
  const admittedIn = new Map<string, number>();
  let everSplit = false;
  let clock = Date.parse('2026-11-29T10:00:00.000Z');
  let serial = 0;

  const membersOf = (k: number) => [...Array(n).keys()].filter((j) => groups[j] === groups[k]);
  const ordered = (ids: string[], k: number) => [...ids].sort((a, b) => (((a.charCodeAt(a.length - 1) * 31 + orderSeed + k) % 7) - ((b.charCodeAt(b.length - 1) * 31 + orderSeed + k) % 7)));
  /** Gates that first hear each other exchange their ledgers before deciding anything. */
  const regroup = (next: number[]) => {
    groups = next;
    const seen = new Set<number>();
    for (let k = 0; k < n; k++) {
      if (seen.has(groups[k]!)) continue;
      seen.add(groups[k]!);
      const members = membersOf(k);
      const union = members.reduce((acc, j) => mergeLedgers(acc, ledgers[j]!), emptyLedger());
      epoch++;
      for (const j of members) {
        ledgers[j] = union;
        epochOf[j] = epoch;
      }
      for (const code of CODES) knownAtStart.set(`${epoch}:${code}`, usesOf(union, code).length);
    }
  };
  regroup(groups);

  for (const action of actions) {
    clock += 1000;
    if (action.kind === 'partition') {
      // Labels are renamed so that kiosks that were apart get labels of their own.
      if (new Set(action.groups).size > 1) everSplit = true;
      regroup(action.groups.map((g) => g));
    } else if (action.kind === 'heal') {
      regroup(groups.map(() => 0));
    } else if (action.kind === 'restart') {
      everSplit = true;
      regroup(groups.map((g, k) => (k === action.kiosk ? 100 + k : g)));
    } else if (action.kind === 'gossip') {
      if (groups[action.from] === groups[action.to]) ledgers[action.to] = mergeLedgers(ledgers[action.to]!, ledgers[action.from]!);
    } else {
      const code = CODES[action.code]!;
      const members = membersOf(action.kiosk);
      const owner = ownerOf(code, ordered(members.map(kioskIdOf), action.kiosk));
      // Every member computes the same owner, whatever order it lists the group in.
      for (const j of members) expect(ownerOf(code, ordered(members.map(kioskIdOf), j))).toBe(owner);
      const ownerIndex = members.find((j) => kioskIdOf(j) === owner)!;
      const decision = decideUse(ledgers[ownerIndex]!, code, remaining[action.code]!);
      if (decision.admit) {
        const use: UseRecord = { useId: `use_${String(++serial).padStart(4, '0')}`, code, kioskId: kioskIdOf(action.kiosk), gate: `Gate ${action.kiosk}`, at: new Date(clock).toISOString() };
        // The owner records the grant; the admitting gate its own use. The rest hear by gossip.
        ledgers[ownerIndex] = withUse(ledgers[ownerIndex]!, use);
        ledgers[action.kiosk] = withUse(ledgers[action.kiosk]!, use);
        const key = `${epochOf[action.kiosk]}:${code}`;
        admittedIn.set(key, (admittedIn.get(key) ?? 0) + 1);
      } else if (decision.lastUse) {
        // A refusal names a use the group knows of.
        expect(usesOf(ledgers[ownerIndex]!, code).map((u) => u.useId)).toContain(decision.lastUse.useId);
      }
    }
  }
  return { ledgers, knownAtStart, admittedIn, everSplit, finalGroups: groups };
}

describe('uses of a pass shared among the gates of a site while the server is away (issue #49)', () => {
  it('gates that hear each other never admit a pass more often than it allows, whatever the partitions, restarts and gossip', async () => {
    checkProperty(
      fc.property(scenario(), (s) => {
        const { knownAtStart, admittedIn, everSplit, ledgers } = run(s);
        // Within every time the gates of a group could hear each other: no more than the uses left
        // by what they knew when they met.
        for (const [key, admitted] of admittedIn) {
          const code = key.split(':')[1]!;
          const limit = s.remaining[CODES.indexOf(code)]!;
          expect(admitted, key).toBeLessThanOrEqual(Math.max(0, limit - knownAtStart.get(key)!));
        }
        // Never apart: never more than the pass allows, in all.
        if (!everSplit) {
          const all = ledgers.reduce((acc, l) => mergeLedgers(acc, l), emptyLedger());
          CODES.forEach((code, i) => expect(usesOf(all, code).length).toBeLessThanOrEqual(s.remaining[i]!));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('once every gate hears every other again, they agree on the excess, and each excess use is reported once, by the gate that recorded it', () => {
    checkProperty(
      fc.property(scenario(), (s) => {
        const { ledgers } = run({ ...s, actions: [...s.actions, { kind: 'heal' }] });
        const remainingByCode = new Map(CODES.map((code, i) => [code, s.remaining[i]!]));
        for (const ledger of ledgers) expect(ledger).toEqual(ledgers[0]);
        const reports = [...Array(s.n).keys()].flatMap((k) => excessToReport(ledgers[k]!, remainingByCode, kioskIdOf(k)));
        const ids = reports.map((use) => use.useId);
        expect(new Set(ids).size).toBe(ids.length);
        CODES.forEach((code, i) => {
          const total = usesOf(ledgers[0]!, code).length;
          const excess = excessUses(ledgers[0]!, code, s.remaining[i]!);
          expect(excess.length).toBe(Math.max(0, total - s.remaining[i]!));
          // The excess is the latest uses: those admitted after the pass had none left.
          const kept = usesOf(ledgers[0]!, code).slice(0, total - excess.length);
          for (const late of excess) for (const early of kept) expect(`${early.at} ${early.useId}` < `${late.at} ${late.useId}`).toBe(true);
          expect(reports.filter((use) => use.code === code).map((u) => u.useId).sort()).toEqual(excess.map((u) => u.useId).sort());
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a refusal names the last use: "Used at Gate 1, 10:42"', () => {
    const first: UseRecord = { useId: 'use_1', code: 'DEMO-AAAA', kioskId: kioskIdOf(1), gate: 'Gate 1', at: '2026-11-29T09:42:00.000Z' };
    expect(decideUse(withUse(emptyLedger(), first), 'DEMO-AAAA', 1)).toEqual({ admit: false, lastUse: first });
    expect(decideUse(emptyLedger(), 'DEMO-AAAA', 0)).toEqual({ admit: false, lastUse: null });
    expect(decideUse(emptyLedger(), 'DEMO-AAAA', 1)).toEqual({ admit: true });
  });
});
