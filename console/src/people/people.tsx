import { useState, type FormEvent } from 'react';
import { ROLES } from '../../../shared/schemas/console.ts';
import { describeError, type Schemas } from '../api.ts';
import { ConfirmButton, CopyButton, ErrorNote, Field, FormButtons, Time } from '../components/ui.tsx';
import { useConsole, useLoad } from '../context.tsx';
import { ListTable } from '../lists/list-table.tsx';
import { useList } from '../lists/use-list.ts';
import { ESTATE_MANAGER, ROLE_SENTENCES, rolesGrantableBy } from '../permissions.ts';
import { ScreenHeader } from '../components/layout.tsx';
import { SiteLimitField, SitesOf, siteLimitProblem, type SiteLimit } from '../sites/site-limit.tsx';
import { useSiteScope } from '../sites/site-scope.tsx';

type Role = Schemas['Role'];
type Person = Schemas['Person'];
/** The roles an organization may choose to hold to two-step sign-in (owners and admins always are). */
type OptionalTwoStepRole = Schemas['ChangeTwoStepPolicyRequest']['roles'][number];

/** A role from a select's value: one of the options, which are roles. */
const roleOf = (value: string): Role | undefined => ROLES.find((role) => role === value);

const OPTIONAL_TWO_STEP: { role: OptionalTwoStepRole; label: string }[] = [
  { role: 'developer', label: 'Developers' },
  { role: 'operator', label: 'Operators (they cancel SOS incidents and see subjects\u2019 phones)' },
  { role: 'viewer', label: 'Viewers' },
];

/** Which roles must sign in with a second step: owners and admins always, the rest as chosen here. */
function TwoStepPolicy() {
  const { client } = useConsole();
  const policy = useLoad((c) => c.get('/console/two-step'), []);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const required = new Set<Role>(policy.data?.required_for ?? []);
  const toggle = async (role: OptionalTwoStepRole, on: boolean) => {
    const roles = OPTIONAL_TWO_STEP.map((option) => option.role).filter((each) => (each === role ? on : required.has(each)));
    setSaving(true);
    setError(null);
    try {
      await client.put('/console/two-step', { body: { roles } });
      policy.reload();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setSaving(false);
    }
  };
  return (
    <section className="panel stack" data-testid="two-step-policy" aria-labelledby="two-step-title">
      <h2 id="two-step-title">Two-step sign-in</h2>
      <p className="muted small">Owners and admins always sign in with a code from an authenticator app. Also require it of:</p>
      <ErrorNote error={policy.error ?? error} />
      {policy.data &&
        OPTIONAL_TWO_STEP.map(({ role, label }) => (
          <label key={role} className="check" htmlFor={`two-step-${role}`}>
            <input id={`two-step-${role}`} type="checkbox" checked={required.has(role)} disabled={saving} onChange={(e) => void toggle(role, e.target.checked)} />
            {label}
          </label>
        ))}
      <p className="muted small">Someone newly required enrols at their next sign-in; the sessions they have stay.</p>
    </section>
  );
}

/** A link made here: shown with a copy button, since no mail server is assumed. */
function InviteLink({ url, email, onDone }: { url: string; email: string; onDone: () => void }) {
  return (
    <section className="panel stack" data-testid="invite-link">
      <p>
        Send this link to <strong>{email}</strong> yourself (chat, text message). It works once and for 7 days.
      </p>
      <p className="secret-row">
        <code className="secret" data-testid="invite-url">
          {url}
        </code>
        <CopyButton text={url} />
      </p>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** What an estate manager can and cannot do, in words, beside the choice. */
function EstateManagerWords() {
  const lists = [
    ['Can', ESTATE_MANAGER.can],
    ['Cannot', ESTATE_MANAGER.cannot],
  ] as const;
  return (
    <div className="estate-manager" data-testid="estate-manager-words">
      {lists.map(([title, lines]) => (
        <div key={title}>
          <p className="eyebrow">{title}</p>
          <ul>
            {lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

/** A role as the form offers it: the five, and an estate manager (an admin limited to sites). */
type Choice = Role | 'estate-manager';

function Invite({ onInvited, onCancel }: { onInvited: (url: string, email: string) => void; onCancel: () => void }) {
  const { client, session } = useConsole();
  const { choices: activeSites } = useSiteScope();
  const roles = rolesGrantableBy(session.person.role);
  // An estate manager is an admin limited to sites: offered where admins are and there are sites to limit to.
  const choices: Choice[] = roles.includes('admin') && activeSites.length > 0 ? [...roles.slice(0, roles.indexOf('admin') + 1), 'estate-manager', ...roles.slice(roles.indexOf('admin') + 1)] : roles;
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [choice, setChoice] = useState<Choice>('viewer');
  const [sites, setSites] = useState<SiteLimit>(null);
  const [error, setError] = useState<string | null>(null);
  const role: Role = choice === 'estate-manager' ? 'admin' : choice;
  // An owner reaches every site: the server refuses sites for one. An estate manager has some.
  const limit = role === 'owner' ? null : sites;
  const choose = (next: Choice) => {
    setChoice(next);
    if (next === 'estate-manager' && sites === null) setSites([]);
  };
  const changeSites = (next: SiteLimit) => {
    // Every site is an admin's reach, not an estate manager's.
    if (next === null && choice === 'estate-manager') setChoice('admin');
    setSites(next);
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = choice === 'estate-manager' && !limit?.length ? 'Sites: tick the estates this manager runs.' : siteLimitProblem(limit);
    setError(problem);
    if (problem) return;
    try {
      const answer = await client.post('/console/invitations', {
        body: { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}), ...(limit ? { site_ids: [...limit] } : {}) },
      });
      onInvited(answer.invite_url, email.trim());
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form className="panel stack" onSubmit={submit} data-testid="invite-form">
      <h2>Invite someone</h2>
      <Field label="Email" id="invite-email">
        <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
      </Field>
      <Field label="Name (optional)" id="invite-name">
        <input id="invite-name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <fieldset className="checklist">
        <legend>Role</legend>
        {choices.map((r) => (
          <label key={r} className="check">
            <input type="radio" name="invite-role" value={r} checked={choice === r} onChange={() => choose(r)} />
            {r === 'estate-manager' ? (
              <span>
                <strong>estate manager</strong> <span className="muted">{ESTATE_MANAGER.summary}</span>
              </span>
            ) : (
              <span>
                <strong>{r}</strong> <span className="muted">{ROLE_SENTENCES[r]}</span>
                {r === 'admin' && choices.includes('estate-manager') && <span className="muted"> For one estate’s manager, choose estate manager below.</span>}
              </span>
            )}
          </label>
        ))}
      </fieldset>
      {choice === 'estate-manager' && <EstateManagerWords />}
      {role !== 'owner' && (
        <SiteLimitField
          value={sites}
          onChange={changeSites}
          idPrefix="invite"
          legend={choice === 'estate-manager' ? 'Sites: the estates this manager runs' : 'Sites: where the role applies'}
        />
      )}
      <ErrorNote error={error} />
      <FormButtons submit="Make invitation link" onCancel={onCancel} />
    </form>
  );
}

/** A person's sites, changed in place: every site, or some (an estate manager's estate). */
function ChangeSites({ person, onSaved, onCancel }: { person: Person; onSaved: () => void; onCancel: () => void }) {
  const { client } = useConsole();
  const [sites, setSites] = useState<SiteLimit>(person.site_ids);
  const [error, setError] = useState<string | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = siteLimitProblem(sites);
    setError(problem);
    if (problem) return;
    try {
      await client.patch('/console/people/{personId}', { params: { path: { personId: person.person_id } }, body: { role: person.role, site_ids: sites && [...sites] } });
      onSaved();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form className="inline-panel stack" onSubmit={submit} data-testid="change-sites">
      <SiteLimitField value={sites} onChange={setSites} idPrefix={`sites-${person.person_id}`} legend={`Sites of ${person.email}`} />
      <ErrorNote error={error} />
      <FormButtons submit="Save sites" onCancel={onCancel} />
    </form>
  );
}

export function PeopleScreen() {
  const { client, session, can } = useConsole();
  const [roleFilter, setRoleFilter] = useState<'' | Role>('');
  const [inviting, setInviting] = useState(false);
  const [link, setLink] = useState<{ url: string; email: string } | null>(null);
  const [changingSites, setChangingSites] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const people = useList('/console/people', { role: roleFilter || undefined });
  const invitations = useList('/console/invitations', {});
  const me = session.person;
  const grantable = rolesGrantableBy(me.role);
  const mayManage = (person: Person) => can('managePeople') && person.person_id !== me.person_id && (me.role === 'owner' || person.role !== 'owner');
  const act = (work: Promise<unknown>, reload: () => void) => {
    setActionError(null);
    return work.then(reload, (e: unknown) => setActionError(describeError(e)));
  };
  return (
    <section className="stack" data-testid="screen-people">
      <ScreenHeader
        title="People"
        action={
          !inviting && (
            <button type="button" className="primary" onClick={() => (setInviting(true), setLink(null))}>
              Invite someone
            </button>
          )
        }
      >
        Who can sign in to this console for {session.organization.name}, with which role, at every site or some. People see both Live and Sandbox.
      </ScreenHeader>
      {inviting && (
        <Invite
          onCancel={() => setInviting(false)}
          onInvited={(url, email) => {
            setInviting(false);
            setLink({ url, email });
            invitations.reload();
          }}
        />
      )}
      {link && <InviteLink url={link.url} email={link.email} onDone={() => setLink(null)} />}
      <div className="filters" role="group" aria-label="Filter people">
        <label htmlFor="people-role">Role</label>
        <select id="people-role" value={roleFilter} onChange={(e) => setRoleFilter(roleOf(e.target.value) ?? '')}>
          <option value="">Every role</option>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </div>
      <ErrorNote error={actionError} />
      <ListTable
        list={people}
        rowKey={(person) => person.person_id}
        rowProps={() => ({ 'data-testid': 'person-row' })}
        empty={{ title: 'Nobody with this role.', body: 'Invite someone, or choose another role.' }}
        columns={[
          {
            header: 'Person',
            cell: (person) => (
              <>
                <strong>{person.name || person.email}</strong>
                {person.person_id === me.person_id && <span className="tag">you</span>}
                <p className="muted small">{person.email}</p>
              </>
            ),
          },
          {
            header: 'Role',
            cell: (person) =>
              mayManage(person) ? (
                <select
                  aria-label={`Role of ${person.email}`}
                  value={person.role}
                  onChange={(e) => {
                    const role = roleOf(e.target.value);
                    if (role) void act(client.patch('/console/people/{personId}', { params: { path: { personId: person.person_id } }, body: { role } }), people.reload);
                  }}
                >
                  {[...new Set([person.role, ...grantable])].map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              ) : (
                person.role
              ),
          },
          {
            header: 'Sites',
            cell: (person) =>
              changingSites === person.person_id ? (
                <ChangeSites person={person} onCancel={() => setChangingSites(null)} onSaved={() => (setChangingSites(null), people.reload())} />
              ) : (
                <>
                  <SitesOf limit={person.site_ids} />{' '}
                  {person.role === 'admin' && person.site_ids && <span className="tag">estate manager</span>}{' '}
                  {/* An owner reaches every site, always. */}
                  {mayManage(person) && person.role !== 'owner' && (
                    <button type="button" className="link" onClick={() => setChangingSites(person.person_id)} aria-label={`Change the sites of ${person.email}`}>
                      Change
                    </button>
                  )}
                </>
              ),
          },
          { header: 'Two-step', cell: (person) => (person.totp_enabled ? <span className="tag good">On</span> : <span className="tag">Off</span>) },
          { header: 'Last active', cell: (person) => <Time iso={person.last_active_at} relative /> },
          {
            header: 'Actions',
            className: 'actions-cell',
            cell: (person) =>
              mayManage(person) && (
                <>
                  <ConfirmButton
                    label="New sign-in link"
                    danger={false}
                    question={`Make a link for ${person.email} to set a new password and authenticator? Their current ones stop working when they use it.`}
                    confirmLabel="Make link"
                    onConfirm={() =>
                      act(
                        client
                          .post('/console/people/{personId}/reset', { params: { path: { personId: person.person_id } } })
                          .then((a) => setLink({ url: a.invite_url, email: person.email })),
                        invitations.reload,
                      )
                    }
                  />
                  <ConfirmButton
                    label="Remove"
                    question={`Remove ${person.email}? Their sessions end at once.`}
                    onConfirm={() => act(client.del('/console/people/{personId}', { params: { path: { personId: person.person_id } } }), people.reload)}
                  />
                </>
              ),
          },
        ]}
      />

      <h2>Pending invitations</h2>
      <ListTable
        list={invitations}
        rowKey={(invitation) => invitation.invitation_id}
        rowProps={() => ({ 'data-testid': 'invitation-row' })}
        empty={{ title: 'No invitations waiting.', body: 'Links you make appear here until they are used or expire.' }}
        columns={[
          { header: 'Email', cell: (invitation) => invitation.email },
          { header: 'Role', cell: (invitation) => invitation.role },
          { header: 'Sites', cell: (invitation) => <SitesOf limit={invitation.site_ids} /> },
          { header: 'Made', cell: (invitation) => <Time iso={invitation.created_at} /> },
          { header: 'Expires', cell: (invitation) => <Time iso={invitation.expires_at} relative /> },
          {
            header: 'Actions',
            cell: (invitation) =>
              (me.role === 'owner' || invitation.role !== 'owner') && (
                <ConfirmButton
                  label="Withdraw"
                  question="Withdraw this link? It stops working."
                  onConfirm={() =>
                    act(client.post('/console/invitations/{invitationId}/withdraw', { params: { path: { invitationId: invitation.invitation_id } }, body: {} }), invitations.reload)
                  }
                />
              ),
          },
        ]}
      />
      <TwoStepPolicy />
    </section>
  );
}
