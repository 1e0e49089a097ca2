import { describe, expect, it } from 'vitest';
import type { ScanDecision } from '../../shared/kiosk/calls.ts';
import { reconcile, type Known } from '../../electron/core/outbox/reconcile.ts';
import type { OutboxRow } from '../../electron/core/outbox/store.ts';

const AT = '2026-11-29T08:30:00.000Z';

function known(over: Partial<Known> = {}): Known {
  return {
    decision: undefined,
    visit: undefined,
    code: undefined,
    entryPoint: 'Main gate',
    kioskId: 'kiosk_1',
    at: AT,
    fresh: { opId: 'op_new', visitId: 'vis_new', attentionId: 'att_new' },
    ...over,
  };
}

function op(over: Partial<OutboxRow>): OutboxRow {
  return {
    seq: 1,
    op_id: 'op_1',
    kind: 'checkout',
    idempotency_key: 'kiosk_1.op_1',
    method: 'PATCH',
    path: '/access-logs/log_1/checkout',
    body: JSON.stringify({ checked_out_at: '2026-11-29T08:00:00.000Z' }),
    visit_id: 'vis_1',
    decision_id: null,
    state: 'pending',
    attempted: 0,
    attempts: 1,
    last_error: null,
    created_at: '2026-11-29T08:00:00.000Z',
    ...over,
  };
}

const OFFLINE_ADMISSION: ScanDecision = {
  decisionId: 'dec_1',
  admitted: true,
  decidedBy: 'offline',
  reason: 'admitted',
  message: 'Admit Ada.',
  code: 'DEMO-2UV2',
  codeId: 'code_1',
  visitor: { name: 'Ada Obi', phone: '+2348030000000' },
  purpose: null,
  hostUserId: null,
  usesLeft: 0,
  validUntil: null,
  visitId: 'vis_1',
  method: 'camera',
  scannedAt: '2026-11-29T08:00:00.000Z',
};

describe("the kiosk's reconciliation of the server's answer (a pure step: the same answer gives the same writes)", () => {
  it("applies a check-out's answer as its settlement alone, and a refused one as a settlement and an attention item naming the visitor", () => {
    const checkout = op({});
    expect(reconcile(checkout, { kind: 'ok', status: 200, body: {} as never }, known())).toEqual([
      { kind: 'settle', opId: 'op_1', state: 'done', statusCode: 200, response: {}, at: AT },
    ]);
    const visit = { visit_id: 'vis_1', log_id: 'log_1', method: 'walk_in', code_id: null, visitor_name: 'Ada Obi', visitor_phone: null, host_user_id: null, entry_point: 'Main gate', checked_in_at: AT, checked_out_at: AT, state: 'out', origin: 'kiosk' } as const;
    const writes = reconcile(checkout, { kind: 'refused', status: 409, message: 'Visitor already checked out' }, known({ visit }));
    expect(writes.map((write) => write.kind)).toEqual(['settle', 'attention']);
    expect(writes[1]).toMatchObject({ item: { attention_id: 'att_new', operation: 'checkout', visitor_name: 'Ada Obi', log_id: 'log_1', server_message: 'Visitor already checked out' } });
  });

  it('keeps a visitor admitted offline whose scan the server refused: the local use settled, a walk-in queued, the guard told', () => {
    const scan = op({ kind: 'validate', method: 'POST', path: '/access-codes/validate', decision_id: 'dec_1', body: JSON.stringify({ code: 'DEMO-2UV2', scanned_at: '2026-11-29T08:00:00.000Z' }) });
    const answer = { kind: 'ok' as const, status: 200, body: { valid: false, reason: 'Maximum uses reached' } as never };
    const writes = reconcile(scan, answer, known({ decision: OFFLINE_ADMISSION }));
    expect(writes.map((write) => write.kind)).toEqual(['settle', 'server_outcome', 'settle_local_use', 'enqueue', 'attention']);
    expect(writes[3]).toMatchObject({ op: { op_id: 'op_new', kind: 'walk_in', idempotency_key: 'kiosk_1.op_new', visit_id: 'vis_1' } });
    expect(writes[4]).toMatchObject({ item: { kind: 'admission_refused', follow_up_op_id: 'op_new' } });
    expect(reconcile(scan, answer, known({ decision: OFFLINE_ADMISSION }))).toEqual(writes);
  });

  it("drops an answered heartbeat and keeps the site its answer names", () => {
    const site = { site_id: 'site_1', name: 'Lekki', call_list: [] };
    expect(reconcile(op({ kind: 'heartbeat', visit_id: null }), { kind: 'ok', status: 200, body: { site } as never }, known())).toEqual([
      { kind: 'drop', opId: 'op_1' },
      { kind: 'remember_site', site },
    ]);
  });
});
