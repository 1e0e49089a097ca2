import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useActions } from './use-actions.ts';
import { ErrorNote, Phone, Qr } from '../components/ui.tsx';
import { answerOf, type StaffClient, type StaffSchemas, type StaffSession } from './client.ts';

type Responder = StaffSchemas['RosterResponder'];
type Standing = Responder['standing'];

const STANDING_WORDS: Record<Standing, string> = { applied: 'Applied', verified: 'Verified', suspended: 'Suspended', retired: 'Retired' };

/**
 * The responder network (issue #47): every responder with their standing, profile and whether
 * they are on duty. Network admins verify, retire, change profiles and issue the app's sign-in
 * (a link and its QR, shown once); supervisors and admins suspend (saying why), resume and revoke
 * a lost phone's sign-in. Controllers read it. Names and reasons are shown as text.
 */
export function Roster({ client, session }: { client: StaffClient; session: StaffSession }) {
  const [responders, setResponders] = useState<Responder[]>([]);
  const [filter, setFilter] = useState<Standing | ''>('');
  const { said, error, failed, run } = useActions();
  const [editing, setEditing] = useState<string | null>(null);
  const [signIn, setSignIn] = useState<{ name: string; url: string } | null>(null);
  const role = session.staff.role;
  const admin = role === 'network_admin';
  const suspender = admin || role === 'supervisor';

  const refresh = useCallback(async () => {
    try {
      setResponders((await answerOf(client.GET('/responders', { params: { query: filter ? { standing: filter } : {} } }))).responders);
    } catch (failure) {
      failed(failure);
    }
  }, [client, filter]);
  useEffect(() => {
    void refresh();
  }, [refresh]);

  const act = (action: () => Promise<string>) => run(action, refresh);
  const params = (responder: Responder) => ({ params: { path: { responderId: responder.responder_id } } });
  const verify = (r: Responder) => act(async () => (await answerOf(client.POST('/responders/{responderId}/verify', { ...params(r), body: {} })), `${r.name} is verified.`));
  const resume = (r: Responder) => act(async () => (await answerOf(client.POST('/responders/{responderId}/resume', { ...params(r), body: {} })), `${r.name} is verified again.`));
  const retire = (r: Responder) => act(async () => (await answerOf(client.POST('/responders/{responderId}/retire', { ...params(r), body: {} })), `${r.name} is retired.`));
  const suspend = (r: Responder, reason: string) =>
    act(async () => (await answerOf(client.POST('/responders/{responderId}/suspend', { ...params(r), body: { reason } })), `${r.name} is suspended.`));
  const issue = (r: Responder) =>
    act(async () => {
      const issued = await answerOf(client.POST('/responders/{responderId}/sign-in', { ...params(r), body: {} }));
      setSignIn({ name: r.name, url: issued.sign_in_url });
      return `A new sign-in for ${r.name}: the old one no longer works.`;
    });
  const revoke = (r: Responder) => act(async () => (await answerOf(client.DELETE('/responders/{responderId}/sign-in', params(r))), `${r.name}'s app is signed out.`));

  return (
    <main className="stack operations" data-testid="roster">
      <header className="row spread">
        <h1>Responders</h1>
        <label className="row">
          Standing
          <select value={filter} onChange={(e) => setFilter(e.target.value as Standing | '')}>
            <option value="">Every standing</option>
            {(Object.keys(STANDING_WORDS) as Standing[]).map((standing) => (
              <option key={standing} value={standing}>
                {STANDING_WORDS[standing]}
              </option>
            ))}
          </select>
        </label>
      </header>
      {said && (
        <p className="notice" role="status">
          {said}
        </p>
      )}
      <ErrorNote error={error} />
      {signIn && (
        <section className="panel stack" data-testid="responder-sign-in">
          <h2>Sign-in for {signIn.name}</h2>
          <p>Shown once: scan it with the responder&apos;s phone, or send the link.</p>
          <Qr text={signIn.url} label={`Sign-in QR for ${signIn.name}`} />
          <code className="small">{signIn.url}</code>
          <button type="button" onClick={() => setSignIn(null)}>
            Done
          </button>
        </section>
      )}
      {admin && <AddApplicant client={client} onAdded={(name) => void act(async () => `${name} added: verify them to send offers.`)} />}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Responder</th>
              <th scope="col">Standing</th>
              <th scope="col">Skills</th>
              <th scope="col">Vehicle</th>
              <th scope="col">Licence</th>
              <th scope="col">On duty</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {responders.map((r) => (
              <tr key={r.responder_id} data-testid="roster-row" data-responder={r.responder_id}>
                <td>
                  {r.name}
                  <br />
                  <Phone phone={r.phone} />
                  {r.base && <span className="muted small">{` · ${r.base}`}</span>}
                </td>
                <td data-testid="standing">
                  {STANDING_WORDS[r.standing]}
                  {r.standing_reason && <span className="muted small">{`: ${r.standing_reason}`}</span>}
                </td>
                <td>{r.skills.join(', ') || '—'}</td>
                <td>{[r.vehicle, r.vehicle_plate].filter(Boolean).join(' ') || '—'}</td>
                <td>{[r.licence_number, r.licence_expires && `to ${r.licence_expires}`].filter(Boolean).join(' ') || '—'}</td>
                <td>{r.available ? 'Yes' : 'No'}</td>
                <td>
                  <div className="row">
                    {admin && r.standing === 'applied' && (
                      <button type="button" onClick={() => void verify(r)} aria-label={`Verify ${r.name}`}>
                        Verify
                      </button>
                    )}
                    {suspender && (r.standing === 'applied' || r.standing === 'verified') && <SuspendButton responder={r} onSuspend={(reason) => void suspend(r, reason)} />}
                    {suspender && r.standing === 'suspended' && (
                      <button type="button" onClick={() => void resume(r)} aria-label={`Resume ${r.name}`}>
                        Resume
                      </button>
                    )}
                    {admin && r.standing !== 'retired' && (
                      <>
                        <button type="button" onClick={() => setEditing(editing === r.responder_id ? null : r.responder_id)} aria-label={`Edit ${r.name}`}>
                          Edit
                        </button>
                        <button type="button" onClick={() => void issue(r)} aria-label={`Issue a sign-in for ${r.name}`}>
                          Sign-in link
                        </button>
                      </>
                    )}
                    {suspender && r.standing !== 'retired' && (
                      <button type="button" onClick={() => void revoke(r)} aria-label={`Revoke ${r.name}'s sign-in`}>
                        Revoke sign-in
                      </button>
                    )}
                    {admin && r.standing !== 'retired' && (
                      <button type="button" className="danger-outline" onClick={() => void retire(r)} aria-label={`Retire ${r.name}`}>
                        Retire
                      </button>
                    )}
                  </div>
                  {editing === r.responder_id && (
                    <EditProfile
                      client={client}
                      responder={r}
                      onSaved={() => {
                        setEditing(null);
                        void act(async () => `${r.name}'s profile is saved.`);
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {responders.length === 0 && <p className="muted">No responder here.</p>}
    </main>
  );
}

function SuspendButton({ responder, onSuspend }: { responder: Responder; onSuspend: (reason: string) => void }) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  if (!asking)
    return (
      <button type="button" onClick={() => setAsking(true)} aria-label={`Suspend ${responder.name}`}>
        Suspend
      </button>
    );
  return (
    <form
      className="row"
      onSubmit={(event) => {
        event.preventDefault();
        onSuspend(reason.trim());
        setAsking(false);
      }}
    >
      <input aria-label={`Why suspend ${responder.name}`} required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="Why" autoFocus />
      <button type="submit" className="danger">
        Suspend
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep
      </button>
    </form>
  );
}

const orNull = (value: string) => (value.trim() ? value.trim() : null);

function EditProfile({ client, responder, onSaved }: { client: StaffClient; responder: Responder; onSaved: () => void }) {
  const [form, setForm] = useState({
    name: responder.name,
    phone: responder.phone,
    skills: responder.skills.join(', '),
    vehicle: responder.vehicle ?? '',
    vehicle_plate: responder.vehicle_plate ?? '',
    base: responder.base ?? '',
    licence_number: responder.licence_number ?? '',
    licence_expires: responder.licence_expires ?? '',
  });
  const [error, setError] = useState<string | null>(null);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await answerOf(
        client.PATCH('/responders/{responderId}', {
          params: { path: { responderId: responder.responder_id } },
          body: {
            name: form.name.trim(),
            phone: form.phone.trim(),
            skills: form.skills.split(',').map((skill) => skill.trim()).filter(Boolean),
            vehicle: orNull(form.vehicle),
            vehicle_plate: orNull(form.vehicle_plate),
            base: orNull(form.base),
            licence_number: orNull(form.licence_number),
            licence_expires: orNull(form.licence_expires),
          },
        }),
      );
      onSaved();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  const field = (label: string, name: keyof typeof form, type = 'text') => (
    <label className="stack-tight">
      {label}
      <input type={type} value={form[name]} onChange={set(name)} />
    </label>
  );
  return (
    <form className="stack panel" onSubmit={save} data-testid="edit-responder">
      {field('Name', 'name')}
      {field('Phone', 'phone')}
      {field('Skills (comma between)', 'skills')}
      {field('Vehicle', 'vehicle')}
      {field('Plate', 'vehicle_plate')}
      {field('Base', 'base')}
      {field('ID or licence number', 'licence_number')}
      {field('Licence expires', 'licence_expires', 'date')}
      <ErrorNote error={error} />
      <button type="submit" className="primary">
        Save
      </button>
    </form>
  );
}

function AddApplicant({ client, onAdded }: { client: StaffClient; onAdded: (name: string) => void }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ name: '', phone: '', latitude: '', longitude: '', skills: '' });
  const [error, setError] = useState<string | null>(null);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Add an applicant
      </button>
    );
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      await answerOf(
        client.POST('/responders', {
          body: { name: form.name.trim(), phone: form.phone.trim(), latitude: Number(form.latitude), longitude: Number(form.longitude), skills: form.skills.split(',').map((s) => s.trim()).filter(Boolean) },
        }),
      );
      setOpen(false);
      onAdded(form.name.trim());
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  const field = (label: string, name: keyof typeof form) => (
    <label className="stack-tight">
      {label}
      <input required={name !== 'skills'} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
    </label>
  );
  return (
    <form className="stack panel" onSubmit={submit}>
      <h2>A new applicant</h2>
      {field('Name', 'name')}
      {field('Phone', 'phone')}
      {field('Base latitude', 'latitude')}
      {field('Base longitude', 'longitude')}
      {field('Skills (comma between)', 'skills')}
      <ErrorNote error={error} />
      <button type="submit" className="primary">
        Add
      </button>
    </form>
  );
}
