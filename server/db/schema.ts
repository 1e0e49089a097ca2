import { PostgresAdapter, type Kysely, type Transaction } from 'kysely';

/**
 * Table types, as stored. Timestamps are ISO 8601 UTC strings with milliseconds on both engines
 * (fixed width, so they sort and compare as text); booleans are 0/1 integers; JSON is text.
 */
export interface Database {
  organizations: OrganizationRow;
  api_keys: ApiKeyRow;
  incidents: IncidentRow;
  incident_timeline: TimelineRow;
  events: EventRow;
  idempotency_requests: IdempotencyRow;
  access_codes: AccessCodeRow;
  access_logs: AccessLogRow;
  pass_keys: PassKeyRow;
  feed_counters: FeedCounterRow;
  webhook_endpoints: WebhookEndpointRow;
  webhook_jobs: WebhookJobRow;
  webhook_deliveries: WebhookDeliveryRow;
  server_keys: ServerKeyRow;
  responders: ResponderRow;
  dispatch_offers: DispatchOfferRow;
  verified_incidents: VerifiedIncidentRow;
  threat_events: ThreatEventRow;
  threat_revision: { id: number; revision: number; rebuild_revision: number };
  threat_data_files: ThreatDataFileRow;
  auth_revision: { id: number; revision: number };
  webhook_revision: { id: number; revision: number };
  event_feed: { id: number; seq: number };
  people: PersonTableRow;
  memberships: MembershipRow;
  sites: SiteRow;
  text_messages: TextMessageRow;
  alarm_stand_downs: AlarmStandDownRow;
  pass_links: PassLinkRow;
  entry_points: EntryPointRow;
  entry_point_names: EntryPointNameRow;
  invitations: InvitationRow;
  recovery_codes: RecoveryCodeRow;
  console_sessions: ConsoleSessionRow;
  audit_log: AuditRow;
  kiosks: KioskRow;
  kiosk_authorities: KioskAuthorityRow;
  roll_calls: RollCallRow;
  roll_call_entries: RollCallEntryRow;
  staff: StaffRow;
  staff_invitations: StaffInvitationRow;
  staff_sessions: StaffSessionRow;
  service_audit_log: ServiceAuditRow;
  service_areas: ServiceAreaRow;
  shifts: ShiftRow;
  staff_alerts: StaffAlertRow;
  safety_checks: SafetyCheckRow;
}

/** A member of the service's own staff (migration 0047): no organization's person. */
export interface StaffRow {
  staff_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  role: string;
  password_hash: string | null;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled: number;
  totp_last_step: number | null;
  created_at: string;
  updated_at: string;
  last_active_at: string | null;
}

export interface StaffInvitationRow {
  invitation_id: string;
  email: string;
  role: string;
  token_hash: string;
  /** A staff id, or `operator` (the host's CLI). */
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface StaffSessionRow {
  session_id: string;
  token_hash: string;
  staff_id: string;
  /** `totp` or `enrol_totp` until `second_step_at`: a staff session is never signed in without it. */
  stage: string;
  second_step_at: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_active_at: string;
  expires_at: string;
  ended_at: string | null;
}

/** The service audit log: every staff action, every opening of a subject's details. */
export interface ServiceAuditRow {
  entry_id: string;
  /** null: the operator on the host. */
  staff_id: string | null;
  /** How the log names who did it: `Kemi Adeyemi (controller)`, `operator`. */
  actor: string;
  action: string;
  subject_type: string | null;
  subject_id: string | null;
  organization_id: string | null;
  /** JSON: what the action said (a reason, an outcome). */
  detail: string | null;
  at: string;
}

/** A gate kiosk as its heartbeats describe it (migration 0021); keyed by tenant and the kiosk's own id. */
export interface KioskRow {
  organization_id: string;
  environment: string;
  kiosk_id: string;
  name: string | null;
  entry_point: string;
  app_version: string;
  queued_operations: number;
  oldest_queued_at: string | null;
  last_sync_at: string | null;
  needs_attention: number;
  /** The kiosk's own clock in its last heartbeat. */
  clock: string;
  /** Tenths of a second (bigint on PostgreSQL: any clock, migration 0042); null when the last heartbeat was replayed from the kiosk's queue. */
  clock_skew_ds: number | null;
  last_seen_at: string;
  /** Set (once per outage, by the sweep that raises kiosk.offline); cleared by the next heartbeat. */
  offline_since: string | null;
  first_seen_at: string;
  retired_at: string | null;
  updated_at: string;
  /** Migration 0029: the site whose gate it stands at. */
  site_id: string | null;
  /** Migration 0059: the kiosk's own Ed25519 public key (raw, base64url), bound at its first certificate. */
  public_key?: string | null;
  certified_at?: string | null;
  certificate_expires_at?: string | null;
}

/** A site's kiosk authority (migration 0059): it certifies the site's kiosks to each other. */
export interface KioskAuthorityRow {
  kid: string;
  organization_id: string;
  environment: string;
  site_id: string;
  public_key: string;
  /** Sealed (server/secrets/). */
  private_key: string;
  created_at: string;
}

/** A roll call: who was on site when it was taken (migration 0022). */
export interface RollCallRow {
  roll_call_id: string;
  organization_id: string;
  environment: string;
  /** JSON array of entry points, or null: every one. */
  entry_points: string | null;
  /** JSON array of the gates that may have left the list incomplete. */
  warnings: string;
  created_by_type: string;
  created_by_id: string;
  created_by_label: string;
  created_at: string;
  /** Migration 0031: the site it was taken for; null: the whole organization. */
  site_id?: string | null;
}

export interface RollCallEntryRow {
  roll_call_id: string;
  log_id: string;
  visitor_name: string | null;
  visitor_phone: string | null;
  entry_point: string | null;
  checked_in_at: string;
  accounted_for: number;
  accounted_by_type: string | null;
  accounted_by_id: string | null;
  accounted_by_label: string | null;
  accounted_at: string | null;
}

/** Who a person is (migration 0024 moved their organization and role to `memberships`). */
export interface PersonTableRow {
  person_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  /** argon2id; null until the invitation is accepted. */
  password_hash: string | null;
  /** Sealed with the sealing key (server/secrets/). */
  totp_secret: string | null;
  /** Sealed; a secret being enrolled, until a code from it is confirmed. */
  totp_pending_secret: string | null;
  totp_enabled: number;
  /** The last 30-second step a code was accepted for: a code is used once. */
  totp_last_step: number | null;
  created_at: string;
  updated_at: string;
  last_active_at: string | null;
}

/** An estate or premises of an organization (migration 0026). */
export interface SiteRow {
  site_id: string;
  organization_id: string;
  name: string;
  address: string | null;
  latitude: number | null;
  longitude: number | null;
  time_zone: string;
  /** JSON: `[{name, phone}]`, phones in E.164, in the order to call them. */
  call_list: string;
  is_default: number;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A gate of a site, named uniquely within it. */
export interface EntryPointRow {
  entry_point_id: string;
  site_id: string;
  organization_id: string;
  name: string;
  created_at: string;
  /** Migration 0044: a gate that codes are bound to is retired rather than removed (no new codes; its codes stay valid). */
  retired_at: string | null;
}

/** A gate's former name (migration 0044): a kiosk that still sends it reaches the gate. Unique within the site. */
export interface EntryPointNameRow {
  entry_point_id: string;
  site_id: string;
  organization_id: string;
  name: string;
  /** When it stopped being the gate's name. */
  created_at: string;
}

/** A person's place in an organization: one row per person for now (migration 0024). */
export interface MembershipRow {
  organization_id: string;
  person_id: string;
  role: string;
  created_at: string;
  updated_at: string;
  /** The sites the role applies to, a JSON array (migration 0032); null: every site. */
  site_ids?: string | null;
}

/** A person as a member of one organization: what the people store reads and writes. */
export type PersonRow = PersonTableRow & Pick<MembershipRow, 'organization_id' | 'role' | 'site_ids'>;

export interface InvitationRow {
  invitation_id: string;
  organization_id: string;
  email: string;
  name: string | null;
  role: string;
  /** `join`: a new person; `reset`: a new password and phone for `person_id`. */
  kind: string;
  person_id: string | null;
  token_hash: string;
  /** A person's id, or `operator` (the CLI on the host). */
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  /** The sites the joining person's role will apply to, a JSON array (migration 0032); null: every site. */
  site_ids?: string | null;
}

export interface RecoveryCodeRow {
  person_id: string;
  code_hash: string;
  used_at: string | null;
}

export interface ConsoleSessionRow {
  session_id: string;
  token_hash: string;
  person_id: string;
  /** `totp`: password done, code due; `enrol_totp`: must enrol first; `active`. */
  stage: string;
  /** When this session passed the second step (a code, a recovery code, a new authenticator confirmed); null: never (migration 0041). */
  second_step_at: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_active_at: string;
  expires_at: string;
  ended_at: string | null;
}

export interface AuditRow {
  audit_id: string;
  organization_id: string;
  environment: string | null;
  /** `person`, `key` or `operator`. */
  actor_type: string;
  actor_id: string;
  actor_label: string;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  ip: string | null;
  created_at: string;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
}

export interface ThreatDataFileRow {
  name: string;
  sha256: string;
  loaded_at: string;
  imported: number;
  replaced: number;
  skipped: number;
}

export interface OrganizationRow {
  organization_id: string;
  name: string;
  plan: string;
  subscription_status: string;
  code_prefix: string;
  rate_limit_per_minute: number | null;
  auto_checkout_hours: number | null;
  retention_days: number | null;
  /** The roles besides owner and admin that must use two-step sign-in, as JSON (migration 0023); null: the default. */
  two_step_roles: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyRow {
  key_id: string;
  organization_id: string;
  environment: string;
  name: string;
  scopes: string;
  secret_hash: string;
  secret_hint: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** A rolled key answers until then (migration 0016); null: no end. */
  expires_at: string | null;
  /** Its maker (migration 0025): `per_…`, `key_…` or `operator` (the CLI); null: unknown, made before it was recorded. */
  created_by: string | null;
  /** The maker's name or key name at the time: shown after the maker is gone. */
  created_by_label: string | null;
  /** A person maker's role at the time. */
  created_by_role: string | null;
  /** An owner kept a key made beyond its maker's grant (shared/console/grants.ts). */
  reviewed_at: string | null;
  reviewed_by: string | null;
  /** The sites the key is limited to, a JSON array (migration 0032); null: every site. */
  site_ids?: string | null;
}

export interface IncidentRow {
  incident_id: string;
  organization_id: string;
  environment: string;
  idempotency_key: string | null;
  category: string;
  severity: string;
  status: string;
  title: string;
  description: string | null;
  is_drill: number;
  subject_name: string;
  subject_phone: string | null;
  subject_email: string | null;
  subject_reference: string | null;
  subject_metadata: string;
  longitude: number;
  latitude: number;
  address: string | null;
  landmark: string | null;
  version: number;
  dispatch_deadline: string;
  escalation_deadline: string;
  assigned_at: string | null;
  on_scene_at: string | null;
  resolution_outcome: string | null;
  resolution_notes: string | null;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  cancelled_at: string | null;
  responder_id: string | null;
  responder_name: string | null;
  responder_phone: string | null;
  responder_latitude: number | null;
  responder_longitude: number | null;
  eta_minutes: number | null;
  /** When the dispatch engine acts next on its own (a simulated responder's move); null: nothing scheduled. */
  next_step_at: string | null;
  /** 0: not yet offered; 1: offered nearby; 2: offered wider after escalation. */
  dispatch_round: number;
  /** When the last `incident.responder_location` event was written (migration 0020): the throttle's mark. */
  responder_location_at?: string | null;
  /** Migration 0027: the site it was raised at or named; null for an incident anywhere else. */
  site_id: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
  /** Migration 0049: the Tsaro controller who took the incident from the queue, and when. */
  controller_id?: string | null;
  controller_name?: string | null;
  controller_taken_at?: string | null;
}

export interface TimelineRow {
  incident_id: string;
  seq: number;
  status: string;
  event: string;
  message: string;
  timestamp: string;
}

export interface EventRow {
  event_id: string;
  organization_id: string;
  environment: string;
  type: string;
  resource_id: string;
  data: string;
  created_at: string;
  /** 1: a test event sent from the console or `POST /webhook-endpoints/{id}/test` (migration 0018); defaults to 0. */
  test?: number;
  /** The stream's position, in the order events became visible (migration 0020; on SQLite taken by the insert itself, 0035); null on PostgreSQL until the sequencer numbers it. */
  feed_seq?: number | null;
  /** The site of the resource it reports, from its data (migration 0032); null: none. */
  site_id?: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
}

export interface IdempotencyRow {
  organization_id: string;
  environment: string;
  idempotency_key: string;
  fingerprint: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  locked_at: string;
  created_at: string;
  /** The sites the caller that made it reached, a JSON array; null: every site (migration 0042). */
  site_ids?: string | null;
}

export interface AccessCodeRow {
  code_id: string;
  organization_id: string;
  environment: string;
  code: string;
  visitor_name: string | null;
  visitor_phone: string | null;
  visitor_email: string | null;
  purpose: string | null;
  entry_point: string | null;
  host_user_id: string | null;
  status: string;
  valid_from: string;
  valid_until: string;
  max_uses: number;
  use_count: number;
  qr_payload: string;
  change_seq: number;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
  erased_at: string | null;
  /** Migration 0027: the site whose gates admit it; null for a code made before sites (every site). */
  site_id: string | null;
  /** Migration 0027: the one entry point that admits it, when the code names one. */
  entry_point_id: string | null;
  /** Migration 0030: the host's phone (E.164), texted when the visitor arrives; null: not texted. */
  host_phone?: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
}

export interface AccessLogRow {
  log_id: string;
  organization_id: string;
  environment: string;
  code_id: string | null;
  method: string;
  visitor_name: string | null;
  visitor_phone: string | null;
  entry_point: string | null;
  host_user_id: string | null;
  notes: string | null;
  status: string;
  checked_in_at: string;
  checked_out_at: string | null;
  checkout_notes: string | null;
  recorded_by: string | null;
  auto_checked_out: number;
  created_at: string;
  updated_at: string;
  erased_at: string | null;
  /** Migration 0027: the site the visit happened at. */
  site_id: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
  /** Migration 0055: 1 when the guard let the visitor in although the code's holder was already inside. */
  already_inside_override?: number;
  /** Migration 0056: JSON of AdmittedOffline (shared/schemas/access.ts) when a gate let the visitor in offline with a code the server then refused; null otherwise. */
  admitted_offline?: string | null;
}

export interface PassKeyRow {
  kid: string;
  organization_id: string;
  environment: string;
  public_key: string;
  /** Sealed (server/secrets/); '' once retired: a retired key signs nothing again. */
  private_key: string;
  created_at: string;
  /** Set when a newer key took over signing; kiosks still accept this one until accept_until. */
  retired_at: string | null;
  accept_until: string | null;
  /** The site whose codes it signs (migration 0033); null: the organization's, for codes made before sites. */
  site_id?: string | null;
}

export interface FeedCounterRow {
  organization_id: string;
  environment: string;
  last_seq: number;
}

export interface WebhookEndpointRow {
  endpoint_id: string;
  organization_id: string;
  environment: string;
  url: string;
  description: string | null;
  events: string;
  status: string;
  /** AES-256-GCM ciphertext of the `whsec_` secret (server/secrets/secret-box.ts). */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_rotated_at: string | null;
  /** 1: the secret was sealed while the sealing key lived in the database (migration 0016); rotating clears it. */
  secret_rotation_due: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The sites whose events it receives, a JSON array (migration 0032); null: every site. */
  site_ids?: string | null;
}

export interface WebhookJobRow {
  job_id: string;
  endpoint_id: string;
  event_id: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  created_at: string;
}

export interface WebhookDeliveryRow {
  delivery_id: string;
  job_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  /** The receiver's answer, its first 500 characters (migration 0019); null without one. */
  response_excerpt?: string | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  next_attempt_at: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
}

export interface ServerKeyRow {
  name: string;
  value: string;
  created_at: string;
}

export interface ResponderRow {
  responder_id: string;
  environment: string;
  name: string;
  phone: string;
  token_hash: string;
  token_hint: string;
  status: string;
  available: number;
  latitude: number | null;
  longitude: number | null;
  location_at: string | null;
  created_at: string;
  updated_at: string;
  /** Migration 0048: applied, verified, suspended, retired; only verified responders are offered incidents. */
  standing?: string;
  standing_reason?: string | null;
  /** A staff id, or `operator`. */
  standing_by?: string | null;
  standing_at?: string | null;
  /** JSON array of skills (armed_response, medical, fire, patrol, ...). */
  skills?: string;
  vehicle?: string | null;
  vehicle_plate?: string | null;
  base?: string | null;
  licence_number?: string | null;
  /** YYYY-MM-DD. */
  licence_expires?: string | null;
  /** Migration 0050: when they last went on or off duty. */
  duty_since?: string | null;
  /** Out of service, why, since when, and by whom (`responder` or a staff id); null: in service. */
  out_of_service_reason?: string | null;
  out_of_service_at?: string | null;
  out_of_service_by?: string | null;
}

/** Migration 0050: an area a network admin drew; `shape` is GeoJSON-ish JSON (shared/schemas/duty.ts). */
export interface ServiceAreaRow {
  area_id: string;
  name: string;
  shape: string;
  created_by: string;
  created_at: string;
}

/** Migration 0050: a responder on shift in an area from `start_hour` to `end_hour` (SHIFT_TIME_ZONE), every day. */
export interface ShiftRow {
  shift_id: string;
  responder_id: string;
  area_id: string;
  start_hour: number;
  end_hour: number;
  created_by: string;
  created_at: string;
}

/** Migration 0050: an alert for staff; `open_key` while open, null once cleared. */
export interface StaffAlertRow {
  alert_id: string;
  kind: string;
  responder_id: string;
  incident_id: string | null;
  organization_id: string | null;
  message: string;
  raised_at: string;
  cleared_at: string | null;
  open_key: string | null;
}

/** Migration 0050: the on-scene "I'm OK" check-ins of one incident's responder. */
export interface SafetyCheckRow {
  incident_id: string;
  responder_id: string;
  due_at: string;
  missed: number;
  last_ok_at: string | null;
  /** When the case went to the top of the staff queue (two missed, or the responder's panic), and why. */
  raised_at: string | null;
  raised_why: string | null;
}

export interface DispatchOfferRow {
  offer_id: string;
  incident_id: string;
  responder_id: string;
  round: number;
  status: string;
  distance_km: number;
  offered_at: string;
  answered_at: string | null;
  /** Migration 0049: the controller's staff id for a manual offer; null: the engine. */
  offered_by?: string | null;
  decline_reason?: string | null;
  /** Migration 0053: when this offer was first made; a reopened offer (a decliner asked again) keeps it, while `offered_at` moves. */
  first_offered_at?: string | null;
  /** Migration 0062: who at Tsaro stood the responder down ("Tsaro control (Kemi)"), why and when; null: never (or asked again since). */
  stood_down_by?: string | null;
  stood_down_reason?: string | null;
  stood_down_at?: string | null;
}

export interface VerifiedIncidentRow {
  incident_id: string;
  category: string;
  severity: string;
  outcome: string;
  latitude: number;
  longitude: number;
  occurred_at: string;
  resolved_at: string;
}

export interface ThreatEventRow {
  /** `<dataset>:<id in it>`, e.g. `ucdp:16342`: importing the same file twice adds nothing. */
  event_id: string;
  source: string;
  dataset: string;
  /** YYYY-MM-DD (public data is dated by day). */
  occurred_on: string;
  latitude: number;
  longitude: number;
  /** 1 exact place … 7 international waters (UCDP `where_prec`). */
  precision: number;
  type: string;
  severity: number;
  fatalities: number;
  weight: number;
  country: string | null;
  admin1: string | null;
  admin2: string | null;
  place: string | null;
  description: string | null;
  imported_at: string;
  /** The write that added it (migration 0008): loaded by `revision > last loaded`. */
  revision: number;
}

/** The partition every tenant query is filtered by: organization AND environment. */
export interface Tenant {
  organizationId: string;
  environment: string;
  /**
   * The sites a caller limited to sites reaches (a key or person bound to sites, issue #34);
   * absent or null: every site. Only a request's tenant carries it (server/auth/context.ts);
   * the service's own work (sweeps, workers) reaches every site.
   */
  sites?: readonly string[] | null;
}

/** What stores take as their first argument: the database or a transaction on it. */
export type Db = Kysely<Database>;
export type Executor = Kysely<Database> | Transaction<Database>;

/** Whether `db` (the database or a transaction on it) is PostgreSQL: for a store's engine-specific SQL. */
export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Runs `work` in a transaction, or in the caller's if `db` already is one. */
export async function inTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>);
  return db.transaction().execute(work);
}

/** Migration 0028: a text message (SMS) and where its sending stands (server/messages/). */
export interface TextMessageRow {
  message_id: string;
  organization_id: string;
  environment: string;
  incident_id: string | null;
  site_id: string | null;
  /** What called for it: `escalated`, `unresponsive`. */
  reason: string;
  recipient_name: string;
  /** E.164. */
  phone: string;
  body: string;
  /** queued, sent, delivered, failed; held or merged (over an hourly ceiling, migration 0043). */
  status: string;
  attempts: number;
  next_attempt_at: string;
  locked_until: string | null;
  last_error: string | null;
  dlr_token_sealed: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  /** Migration 0030: the visit a host's text is about. */
  log_id?: string | null;
  /** Migration 0036: 1 once the background fold has counted the row in its tallies (server/db/tallies.ts); 0 until then. */
  tallied?: number;
  /** Migration 0043: when the hourly ceilings let it go to the gateway (null: not yet decided, or held or merged). */
  cleared_at: string | null;
  /** Migration 0043: the text this alarm went out in, merged over the ceiling (its status is then `merged`). */
  merged_into: string | null;
  /** Migration 0045: a secret link the text carries (a visitor's pass), sealed until the gateway takes it; `body` shows it cut short. */
  link_sealed?: string | null;
}

/** Migration 0045: an incident whose alarm texts are over (a false alarm, cancelled or resolved), once. */
export interface AlarmStandDownRow {
  incident_id: string;
  organization_id: string;
  environment: string;
  /** `false_alarm`, `cancelled` or `resolved`. */
  cause: string;
  stood_down_at: string;
}

/** Migration 0045: a visitor's pass sent by text, by its link token's SHA-256 (the token is never stored). */
export interface PassLinkRow {
  token_hash: string;
  code_id: string;
  organization_id: string;
  environment: string;
  /** E.164: where it was sent. */
  phone: string;
  created_at: string;
}
