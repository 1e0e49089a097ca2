import { Command, CommanderError, Option } from 'commander';
import QRCode from 'qrcode';
import { SCOPES, type Scope } from '../../shared/schemas/api-keys.ts';
import { Email, ROLES, type Role } from '../../shared/schemas/console.ts';
import { CodePrefix, OrganizationName } from '../../shared/schemas/organization.ts';
import { inviteOrReset } from '../people/service.ts';
import { changeOrganization, createOrganization, findOrganization, OrganizationInputError } from '../organizations/service.ts';
import { PLANS, type Plan } from '../organizations/organization.ts';
import { createApiKey, revokeApiKeyById } from '../auth/service.ts';
import { addResponder, deactivateResponder, listResponders, ResponderInputError } from '../responders/service.ts';
import { signInUrl } from '../responders/sign-in.ts';
import { changeStanding, updateProfile, type StandingVerb } from '../responders/roster.ts';
import { inviteStaff, recordStaffAction } from '../staff/service.ts';
import { STAFF_ROLES, ResponderProfileChange, type StaffRole } from '../../shared/schemas/staff.ts';
import { ApiError } from '../http/errors.ts';
import { IMPORT_FORMATS, ImportError, importThreatFile, type ImportFormat } from '../threat/import.ts';
import { systemClock } from '../clock.ts';
import { isPostgresUrl, loadConfig, type Config } from '../config.ts';
import { migrateToLatest, openDatabase } from '../db/database.ts';
import { serverMigrations } from '../db/migrations/index.ts';
import { loadSealingKeys, SealingKeyError } from '../secrets/key-source.ts';
import { exportDatabaseKey } from '../secrets/legacy-key.ts';
import { rotateSealedValues } from '../secrets/rotation.ts';
import type { Db } from '../db/schema.ts';
import { CliError, createOutput, type Output } from './output.ts';

/**
 * `npx tsaro ...`: what the API cannot do for itself, run on the server host against the same
 * DATABASE_URL. Every command takes --json and then prints exactly one JSON object.
 */
export function buildProgram(run: (work: (db: Db, out: Output, config: Config) => Promise<void>, json: boolean) => Promise<void>): Command {
  const program = new Command('tsaro').description('Tsaro operator tool').showHelpAfterError().exitOverride();
  const clock = systemClock;
  const jsonOption = () => new Option('--json', 'print one JSON object');

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization and print its first live and sandbox owner keys (shown once), and with --owner-email its owner\'s console invitation')
    .requiredOption('--name <name>', 'organization name')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLANS).default('starter'))
    .option('--prefix <ABC>', 'access code prefix, 2 to 6 capital letters (default: from the name)')
    .option('--owner-email <email>', "invite the organization's first owner to the console")
    .addOption(jsonOption())
    .action((opts: { name: string; plan: Plan; prefix?: string; ownerEmail?: string; json?: boolean }) =>
      run(async (db, out, config) => {
        const ownerEmail = opts.ownerEmail === undefined ? undefined : parseEmail(opts.ownerEmail, '--owner-email');
        const created = await createOrganization(db, clock, { name: opts.name, plan: opts.plan, codePrefix: opts.prefix });
        const invited =
          ownerEmail === undefined
            ? undefined
            : await inviteOrReset({ db, clock, publicUrl: config.PUBLIC_URL }, { organizationId: created.organization.organization_id, email: ownerEmail, role: 'owner' });
        out.result(
          {
            organization: created.organization,
            keys: { live: created.keys.live.secret, sandbox: created.keys.sandbox.secret },
            ...(invited && { owner_invite_url: invited.invite_url }),
          },
          [
            `Created ${created.organization.name} (${created.organization.organization_id}), plan ${created.organization.plan}, code prefix ${created.organization.code_prefix}.`,
            'Owner keys, shown once:',
            `  live:    ${created.keys.live.secret}`,
            `  sandbox: ${created.keys.sandbox.secret}`,
            ...(invited ? [`Console invitation for ${ownerEmail} (single use, 7 days): ${invited.invite_url}`] : []),
          ].join('\n'),
        );
      }, Boolean(opts.json)),
    );

  org
    .command('update')
    .description("rename an organization, change its code prefix (new codes only) or plan, suspend or resume it, or set its per-minute limit")
    .argument('<orgId>')
    .option('--name <name>', 'its name, shown on every visitor pass')
    .option('--prefix <ABC>', 'what new access codes begin with, 2 to 6 letters; codes already issued keep theirs')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLANS))
    .addOption(new Option('--suspend', 'suspend the subscription (every key answers 402)').conflicts('resume'))
    .option('--resume', 'make the subscription active again')
    .option('--rate-limit <n>', 'requests per minute per key, or "plan" for the plan default')
    .option('--auto-checkout-hours <n>', 'check out visitors still in after n hours (1-720), or "off"')
    .option('--retention-days <n>', 'erase visitor names and phones of closed visits after n days (1-3650), or "off"')
    .addOption(jsonOption())
    .action((orgId: string, opts: OrgUpdateOptions) =>
      run(async (db, out) => {
        const organization = await changeOrganization(db, clock, orgId, {
          name: parseName(opts.name),
          codePrefix: parsePrefix(opts.prefix),
          plan: opts.plan,
          suspended: opts.suspend ? true : opts.resume ? false : undefined,
          rateLimitPerMinute: parseRateLimit(opts.rateLimit),
          autoCheckoutHours: parsePolicy(opts.autoCheckoutHours, '--auto-checkout-hours', 720),
          retentionDays: parsePolicy(opts.retentionDays, '--retention-days', 3650),
        });
        if (!organization) throw new CliError(`organization ${orgId} not found`);
        out.result(
          { organization },
          `${organization.organization_id}: ${organization.name}, code prefix ${organization.code_prefix}, plan ${organization.plan}, ${organization.subscription_status}, ${organization.rate_limit_per_minute} requests per minute per key, auto-checkout ${organization.auto_checkout_hours ?? 'off'} h, retention ${organization.retention_days ?? 'off'} days`,
        );
      }, Boolean(opts.json)),
    );

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key (the secret is printed once)')
    .requiredOption('--org <orgId>', 'organization id')
    .addOption(new Option('--env <env>', 'environment').choices(['live', 'sandbox']).makeOptionMandatory())
    .requiredOption('--scopes <a,b>', `comma-separated: ${SCOPES.join(', ')}`)
    .option('--name <name>', 'what the key is for', 'CLI key')
    .addOption(jsonOption())
    .action((opts: { org: string; env: 'live' | 'sandbox'; scopes: string; name: string; json?: boolean }) =>
      run(async (db, out) => {
        if (!(await findOrganization(db, opts.org))) throw new CliError(`organization ${opts.org} not found`);
        const created = await createApiKey(db, clock, {
          organizationId: opts.org,
          environment: opts.env,
          name: opts.name,
          scopes: parseScopes(opts.scopes),
          maker: { type: 'operator' },
        });
        out.result(created, `Created ${created.api_key.key_id} (${created.api_key.environment}, ${created.api_key.scopes.join(' ')}).\nSecret, shown once: ${created.secret}`);
      }, Boolean(opts.json)),
    );
  key
    .command('revoke')
    .description('revoke an API key; it answers 401 from then on')
    .argument('<keyId>')
    .addOption(jsonOption())
    .action((keyId: string, opts: { json?: boolean }) =>
      run(async (db, out) => {
        const api_key = await revokeApiKeyById(db, clock, keyId);
        if (!api_key) throw new CliError(`API key ${keyId} not found`);
        out.result({ api_key }, `Revoked ${keyId} at ${api_key.revoked_at}`);
      }, Boolean(opts.json)),
    );
  const responder = program.command('responder').description("the service's responder network");
  responder
    .command('add')
    .description("add a responder, available at a place; prints its responder API token once, and a sign-in link and QR code for the phone app (PUBLIC_URL)")
    .requiredOption('--name <name>', 'full name')
    .requiredOption('--phone <phone>', 'phone number')
    .requiredOption('--lat <latitude>', 'latitude')
    .requiredOption('--lng <longitude>', 'longitude')
    .addOption(new Option('--env <env>', 'environment').choices(['live', 'sandbox']).default('live'))
    .addOption(jsonOption())
    .action((opts: { name: string; phone: string; lat: string; lng: string; env: 'live' | 'sandbox'; json?: boolean }) =>
      run(async (db, out, config) => {
        let created;
        try {
          created = await addResponder(db, clock, {
            name: opts.name,
            phone: opts.phone,
            latitude: Number(opts.lat),
            longitude: Number(opts.lng),
            environment: opts.env,
          });
        } catch (err) {
          // The service names the schema's field; the operator typed a flag.
          if (err instanceof ResponderInputError) throw new CliError(err.message.replace(err.field, RESPONDER_FLAGS[err.field] ?? err.field));
          throw err;
        }
        const sign_in_url = signInUrl(config.PUBLIC_URL, created.token);
        const qr = opts.json ? '' : await QRCode.toString(sign_in_url, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
        out.result(
          { ...created, sign_in_url },
          [
            `Added ${created.responder.responder_id} (${created.responder.name}, ${opts.env}).`,
            `Responder API token, shown once: ${created.token}`,
            `Sign-in link for the responder app (open it on the responder's phone): ${sign_in_url}`,
            qr,
          ].join('\n'),
        );
      }, Boolean(opts.json)),
    );
  responder
    .command('list')
    .description('list responders')
    .addOption(new Option('--env <env>', 'only this environment').choices(['live', 'sandbox']))
    .addOption(jsonOption())
    .action((opts: { env?: string; json?: boolean }) =>
      run(async (db, out) => {
        const responders = await listResponders(db, opts.env);
        out.result(
          { responders },
          responders.map((r) => `${r.responder_id}  ${r.status.padEnd(11)} ${r.available ? 'available  ' : 'unavailable'} ${r.environment.padEnd(7)} ${r.name}`).join('\n') || 'No responders.',
        );
      }, Boolean(opts.json)),
    );
  responder
    .command('deactivate')
    .description('take a responder out of the network; its token stops working')
    .argument('<responderId>')
    .addOption(jsonOption())
    .action((responderId: string, opts: { json?: boolean }) =>
      run(async (db, out) => {
        const found = await deactivateResponder(db, clock, responderId);
        if (!found) throw new CliError(`responder ${responderId} not found`);
        out.result({ responder: found }, `Deactivated ${responderId}`);
      }, Boolean(opts.json)),
    );
  // The roster's verbs (CONTRACT.md), each → {responder}: the host's CLI is the network admin's own tool.
  const standingVerb = (verb: StandingVerb, description: string, withReason = false) => {
    const command = responder.command(verb).description(description).argument('<responderId>');
    if (withReason) command.requiredOption('--reason <reason>', 'why (shown to staff)');
    command.addOption(jsonOption()).action((responderId: string, opts: { reason?: string; json?: boolean }) =>
      run(async (db, out) => {
        const changed = await rosterCall(() => changeStanding(db, clock, responderId, verb, 'operator', opts.reason?.trim() || undefined));
        await recordStaffAction(db, clock, 'operator', { action: `${verb}Responder`, subjectType: 'responder', subjectId: responderId, ...(opts.reason && { detail: { reason: opts.reason } }) });
        out.result({ responder: changed }, `${responderId}: ${changed.standing}${changed.standing_reason ? ` (${changed.standing_reason})` : ''}`);
      }, Boolean(opts.json)),
    );
  };
  standingVerb('verify', 'verify a responder who applied: offered incidents from now on');
  standingVerb('suspend', 'suspend a responder, saying why: offered nothing until resumed', true);
  standingVerb('resume', 'resume a suspended responder');
  standingVerb('retire', 'retire a responder (as deactivate): its token stops working');
  responder
    .command('update')
    .description("change a responder's profile")
    .argument('<responderId>')
    .option('--name <name>', 'full name')
    .option('--phone <phone>', 'phone number')
    .option('--skills <a,b>', 'skills, comma-separated: armed_response, medical, fire, patrol, ...')
    .option('--vehicle <text>', 'the vehicle: motorbike, car, van')
    .option('--licence-expires <date>', 'when the ID or licence expires, YYYY-MM-DD')
    .addOption(jsonOption())
    .action((responderId: string, opts: { name?: string; phone?: string; skills?: string; vehicle?: string; licenceExpires?: string; json?: boolean }) =>
      run(async (db, out) => {
        const parsed = ResponderProfileChange.safeParse({
          name: opts.name,
          phone: opts.phone,
          skills: opts.skills?.split(',').map((skill) => skill.trim()).filter(Boolean),
          vehicle: opts.vehicle,
          licence_expires: opts.licenceExpires,
        });
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const field = String(issue.path[0]);
          throw new CliError(`--${field.replace('licence_expires', 'licence-expires')}: ${issue.message}`);
        }
        const changed = await rosterCall(() => updateProfile(db, clock, responderId, parsed.data));
        await recordStaffAction(db, clock, 'operator', { action: 'updateResponder', subjectType: 'responder', subjectId: responderId, detail: { fields: Object.keys(parsed.data).filter((k) => (parsed.data as Record<string, unknown>)[k] !== undefined) } });
        out.result({ responder: changed }, `Updated ${responderId}`);
      }, Boolean(opts.json)),
    );

  const staff = program.command('staff').description("the service's own staff: controllers, supervisors, network admins");
  staff
    .command('invite')
    .description('a single-use link (7 days) to join the operations centre; they set a password and always an authenticator')
    .requiredOption('--email <email>', "the person's email (not a partner member's)")
    .addOption(new Option('--role <role>', 'staff role').choices(STAFF_ROLES).makeOptionMandatory())
    .addOption(jsonOption())
    .action((opts: { email: string; role: StaffRole; json?: boolean }) =>
      run(async (db, out, config) => {
        const email = parseEmail(opts.email, '--email');
        const made = await rosterCall(() => inviteStaff({ db, clock, publicUrl: config.PUBLIC_URL }, { email, role: opts.role }));
        out.result(made, `Staff invitation for ${email} (${opts.role}), single use, 7 days:\n  ${made.invite_url}`);
      }, Boolean(opts.json)),
    );

  const threat = program.command('threat').description('threat intelligence data');
  threat
    .command('import')
    .description('import security events; importing the same file again adds nothing')
    .addOption(new Option('--format <format>', 'file format').choices(IMPORT_FORMATS).makeOptionMandatory())
    .argument('<file>')
    .addOption(jsonOption())
    .action((file: string, opts: { format: ImportFormat; json?: boolean }) =>
      run(async (db, out) => {
        const { imported, replaced, skipped } = await importThreatFile(db, clock, opts.format, file);
        // The operator contract's shape is exactly {imported, skipped}: an event a newer UCDP release replaced counts as imported.
        out.result(
          { imported: imported + replaced, skipped },
          `Imported ${imported + replaced} events (${replaced} of them newer releases of stored events); skipped ${skipped} (already there or unusable).`,
        );
      }, Boolean(opts.json)),
    );

  const consoleCommand = program.command('console').description('people in the console');
  consoleCommand
    .command('invite')
    .description("a single-use console link (7 days) for a new person; for someone already there, a link that resets their password and phone (a sole owner locked out)")
    .requiredOption('--org <orgId>', 'organization id')
    .requiredOption('--email <email>', "the person's email")
    .addOption(new Option('--role <role>', 'role').choices(ROLES).makeOptionMandatory())
    .option('--name <name>', "the person's name")
    .addOption(jsonOption())
    .action((opts: { org: string; email: string; role: Role; name?: string; json?: boolean }) =>
      run(async (db, out, config) => {
        const email = parseEmail(opts.email, '--email');
        if (!(await findOrganization(db, opts.org))) throw new CliError(`No organization ${opts.org}`);
        const made = await inviteOrReset({ db, clock, publicUrl: config.PUBLIC_URL }, { organizationId: opts.org, email, role: opts.role, name: opts.name });
        out.result(made, `${made.invitation.kind === 'reset' ? 'Reset' : 'Invitation'} link for ${email} (${made.invitation.role}), single use, until ${made.invitation.expires_at}:\n  ${made.invite_url}`);
      }, Boolean(opts.json)),
    );

  const secrets = program.command('secrets').description('the sealing key (docs/security.md)');
  secrets
    .command('export-key')
    .description('print, once, the sealing key an older version kept in the database, and erase it from there (then: every host gets it as SECRETS_KEY_PREVIOUS beside a new SECRETS_KEY, and `tsaro secrets rotate`)')
    .addOption(jsonOption())
    .action((opts: { json?: boolean }) =>
      run(async (db, out) => {
        const exported = await exportDatabaseKey(db, clock);
        if (!exported) throw new CliError('no sealing key is kept in this database: nothing to export');
        out.result(exported, [
          `The key the database kept (id ${exported.key_id}), now erased from it. Shown once:`,
          `  ${exported.key}`,
          'Give it to every host as SECRETS_KEY_PREVIOUS, with a new SECRETS_KEY (umask 077; openssl rand -hex 32), start them, then run `npx tsaro secrets rotate`.',
          `${exported.endpointsToRotate} webhook endpoints are marked secret_rotation_due (a copy of the database may open their secrets); ${exported.passKeysRetired} pass-signing keys were retired (new passes get new keys; kiosks accept the old ones until their passes expire).`,
        ].join('\n'));
      }, Boolean(opts.json)),
    );
  secrets
    .command('rotate')
    .description('re-seal every sealed value under SECRETS_KEY (values sealed with SECRETS_KEY_PREVIOUS still open meanwhile); in batches, safe to stop and run again')
    .addOption(jsonOption())
    .action((opts: { json?: boolean }) =>
      run(async (db, out, config) => {
        const keys = loadSealingKeys(config, isPostgresUrl(config.DATABASE_URL) ? 'postgres' : 'sqlite');
        const report = await rotateSealedValues(db, keys.box);
        out.result(report, `Re-sealed ${report.resealed} values under key ${report.key_id}; ${report.remaining} remain under another key${report.remaining ? ' (written meanwhile by a host without the new key: run again once every host has it)' : ''}.`);
        if (report.remaining > 0) out.exitWith(1);
      }, Boolean(opts.json)),
    );
  return program;
}

/** A refusal the API would answer 404 or 409 is the operator's error: its message, exit 1. */
async function rosterCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(err.message);
    throw err;
  }
}

/** `tsaro responder add`'s flag for each field of a new responder. */
const RESPONDER_FLAGS: Record<string, string> = { name: '--name', phone: '--phone', latitude: '--lat', longitude: '--lng', environment: '--env' };

function parseEmail(text: string, flag: string): string {
  const parsed = Email.safeParse(text);
  if (!parsed.success) throw new CliError(`${flag}: ${text} is not an email address`);
  return parsed.data;
}

function parseScopes(list: string): Scope[] {
  const scopes = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown !== undefined || scopes.length === 0) {
    throw new CliError(`--scopes: ${unknown ?? '(empty)'} is not a scope; choose from ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

interface OrgUpdateOptions {
  name?: string;
  prefix?: string;
  plan?: Plan;
  suspend?: boolean;
  resume?: boolean;
  rateLimit?: string;
  autoCheckoutHours?: string;
  retentionDays?: string;
  json?: boolean;
}

function parseName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = OrganizationName.safeParse(value);
  if (!parsed.success) throw new CliError('--name: 1 to 200 characters');
  return parsed.data;
}

function parsePrefix(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = CodePrefix.safeParse(value);
  if (!parsed.success) throw new CliError(`--prefix: ${value} is not 2 to 6 letters (A-Z)`);
  return parsed.data;
}

function parsePolicy(value: string | undefined, flag: string, max: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'off') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new CliError(`${flag}: a whole number from 1 to ${max}, or "off"`);
  return n;
}

function parseRateLimit(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'plan') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new CliError('--rate-limit: a whole number from 1 to 1000000, or "plan"');
  return n;
}

/** Where a run of the CLI reads its settings and writes its answer: the process's own, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: CliIo = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Runs one command line (`argv` as Node gives it: node, script, then the words); answers the exit code. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const json = argv.includes('--json');
  let exitCode = 0;
  const fail = (message: string, code: number) => {
    if (json) io.stdout(`${JSON.stringify({ error: { message } })}\n`);
    else io.stderr(`tsaro: ${message}\n`);
    exitCode = code;
  };
  const run = async (work: (db: Db, out: Output, config: Config) => Promise<void>, jsonOut: boolean) => {
    const config = loadConfig(io.env);
    const database = openDatabase(config.DATABASE_URL, {
      poolSize: 2,
      connectTimeoutS: config.DATABASE_CONNECT_TIMEOUT_S,
      statementTimeoutS: config.DATABASE_STATEMENT_TIMEOUT_S,
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    });
    try {
      await migrateToLatest(database.db, serverMigrations({ secretBox: () => loadSealingKeys(config, database.engine).box }));
      const out = createOutput(jsonOut, io.stdout);
      await work(database.db, out, config);
      exitCode = out.exitCode();
    } finally {
      await database.close();
    }
  };
  const program = buildProgram(run);
  // With --json, stdout carries exactly one JSON object: commander's help and errors go to stderr or nowhere.
  // Commander copies a command's output settings to subcommands only when they are made: set them on every one.
  const output = json ? { writeErr: () => undefined, writeOut: io.stderr } : { writeErr: io.stderr, writeOut: io.stdout };
  const configure = (command: Command): void => {
    command.configureOutput(output);
    command.commands.forEach(configure);
  };
  configure(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0;
      fail(err.message.replace(/^error: /, ''), 2);
    } else if (err instanceof CliError || err instanceof OrganizationInputError || err instanceof ResponderInputError || err instanceof ImportError || err instanceof SealingKeyError) {
      fail(err.message, 1);
    } else {
      fail(err instanceof Error ? err.message : String(err), 1);
    }
  }
  return exitCode;
}
