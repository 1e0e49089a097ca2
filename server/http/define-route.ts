import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import type { Role } from '../../shared/schemas/console.ts';
import type { StaffRole } from '../../shared/schemas/staff.ts';
import { GATE_OPERATIONS, type GateOperationKind } from '../../shared/kiosk/gate-operations.ts';
import { asReadParty } from '../db/fair-queue.ts';
import type { Db, Executor } from '../db/schema.ts';
import { idempotencyHeader, json } from './responses.ts';
import { parseInput } from './parse.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who a stored answer is replayed to: any caller allowed the route, or only the maker (an answer carrying a secret). */
export type IdempotentAnswer = 'plain' | 'answer-holds-secret';

/**
 * How a route takes its Idempotency-Key: an `IdempotentAnswer`, in a transaction the middleware
 * opens for the request (`input.db`); or `claimed-by-service`: the route's service claims the key
 * and stores its plain answer in the transaction it runs anyway (`req.keyClaim`,
 * server/idempotency/middleware.ts), so that transaction may be shared with other requests (a
 * tenant's validations on PostgreSQL, server/db/serial-batches.ts).
 */
export type IdempotentMode = IdempotentAnswer | 'claimed-by-service';

/**
 * Who may call a route: an API key holding the scope (or a console person whose role allows it),
 * a responder's token, a console person alone (`person`: people, sessions), one of the service's
 * own staff (`staff`: the operations centre, /v1/staff), or anyone.
 */
export type Access = Scope | 'responder' | 'person' | 'staff' | 'public';

export interface GuardOptions {
  /** A person may call the route only with one of these roles (default: by the role's scopes, server/auth/permissions.ts). */
  roles?: readonly Role[];
  /** A `staff` route: the staff roles that may call it (default: every staff role). */
  staffRoles?: readonly StaffRole[];
  /**
   * Requests the plan's budget never refuses (an SOS): still authenticated and scope-checked,
   * counted in the window while it has room, and let through when it is full.
   */
  neverRefuse?: (req: Request) => boolean;
  /** The route's scope OR any of these opens it (the event stream: any read scope); the document lists them all. */
  anyScopeOf?: readonly Scope[];
  /**
   * Only for callers who reach every site (issue #34): the organization's people, policies and
   * audit log, and adding or archiving sites. A key or person limited to sites gets a 403.
   */
  everySite?: boolean;
}

/** The access check a scoped route starts with (server/auth/authenticate.ts builds it). */
export type Guard = (scope: Scope, options?: GuardOptions) => RequestHandler;

type Part = z.ZodType | undefined;
/** Params and query are objects of named fields; a body may be any shape. */
type FieldsPart = z.ZodType<unknown, Record<string, unknown>> | undefined;
type Parsed<S extends Part> = S extends z.ZodType ? z.output<S> : undefined;

/** The request's parts, each parsed with the route's schema (`undefined` where the route declares none). */
export interface RouteInput<P extends Part, Q extends Part, B extends Part> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  /** What the route's service runs on: the request's transaction (an idempotent write), or the database. */
  db: Executor;
}

/**
 * One route, declared once: the Express router (`routerOf`) and the OpenAPI paths (`pathsOf`)
 * both come from it, so the document cannot drift from what is served.
 */
export interface RouteDefinition<D, P extends FieldsPart = FieldsPart, Q extends FieldsPart = FieldsPart, B extends Part = Part> {
  method: Method;
  /** Express form, `/incidents/:incidentId`; the document shows `/incidents/{incidentId}`. */
  path: string;
  /** A scope: the guard's 401 → 402 → 403 → 429, and "Scope `x`." opens the description. */
  access: Access;
  guardOptions?: GuardOptions;
  /** Runs after access and before the idempotency record opens (slow checks that must not hold the database). */
  precheck?(req: Request, deps: D): Promise<void>;
  /**
   * Takes the Idempotency-Key header (every partner POST, PATCH and DELETE). `answer-holds-secret`:
   * the answer carries a secret shown once, so it is replayed only to the key that made it.
   * `claimed-by-service`: see `IdempotentMode`.
   */
  idempotent?: boolean | IdempotentMode;
  /** false: a write that reports rather than changes (a kiosk's heartbeat, every 30 s) leaves no audit entry. */
  audited?: false;
  /** A person's own change (their password, their sessions): its audit entry goes to each of their organizations' logs. */
  personal?: true;
  /**
   * `reads`: a broad read (a list, a search, stats, a report). Its `input.db` is the read lane
   * (server/db/read-lane.ts): a pool or threads of its own, capped and time-limited, so it never
   * takes what the SOS, the gates and every write run on.
   */
  lane?: 'reads';
  params?: P;
  query?: Q;
  body?: B;
  /** Request headers the handler reads itself (Last-Event-ID): for the document only. */
  headers?: z.ZodObject;
  operationId: string;
  tags?: string[];
  summary: string;
  /** After the scope sentence, which is derived from `access`. */
  description?: string;
  responses: ZodOpenApiResponsesObject;
  /** Writes the answer; parts are parsed in the order params, query, body, each a 400 naming the field. */
  handler(input: RouteInput<P, Q, B>, req: Request, res: Response, deps: D): unknown;
}

/** `const route = routeFor<RouteDeps>()`: a definition helper whose handler input is typed from its schemas. */
export function routeFor<D>() {
  return <P extends FieldsPart = undefined, Q extends FieldsPart = undefined, B extends Part = undefined>(
    route: RouteDefinition<D, P, Q, B>,
  ): RouteDefinition<D> => route as RouteDefinition<D>;
}

type GateOperationOf<K extends GateOperationKind> = (typeof GATE_OPERATIONS)[K];

/**
 * A gate operation's single route as the kiosk sends it (shared/kiosk/gate-operations.ts): its
 * method, path, scope and body, spread into the route's definition.
 */
export function gateRoute<K extends GateOperationKind>(kind: K) {
  const operation: GateOperationOf<K> = GATE_OPERATIONS[kind];
  return {
    method: operation.method.toLowerCase() as Lowercase<GateOperationOf<K>['method']>,
    path: operation.path,
    access: operation.scope as Scope,
    body: operation.body as GateOperationOf<K>['body'],
  };
}

/** The middleware a feature's routes are wired with; only what its definitions use is required. */
export interface RouteWiring {
  guard?: Guard;
  /** The database, for handlers that read `input.db` outside a request transaction. */
  db?: Db;
  /** The read lane's database, for `lane: 'reads'` routes (default `db`). */
  readDb?: Db;
  /** Authenticates `Authorization: Bearer rtk_...` (401 otherwise). */
  responder?: RequestHandler;
  idempotent?: (mode: IdempotentMode) => RequestHandler;
  /** A signed-in console person (`person` routes), with the roles the route allows. */
  person?: (options: GuardOptions | undefined) => RequestHandler;
  /** A signed-in member of the service's staff (`staff` routes), with the staff roles the route allows. */
  staff?: (options: GuardOptions | undefined) => RequestHandler;
  /** Records every successful change by a key or a person (server/audit/). */
  audit?: (route: RouteDefinition<never>) => RequestHandler;
}

function required<T>(value: T | undefined, what: string, route: RouteDefinition<unknown>): T {
  if (!value) throw new Error(`${route.method.toUpperCase()} ${route.path} needs ${what}, which its router was not given`);
  return value;
}

/** The Express router serving the definitions: access → precheck → idempotency → parse → handler. */
/**
 * A handler's input. A class, so that `db` is one getter on its prototype: an object literal's
 * getter was a new function and a new hidden class for every request, and that hidden class
 * (old space) kept the request's whole graph alive through V8's young collections: every
 * request was promoted, and young collections took 25-35 ms (docs/benchmarks.md).
 */
class ParsedInput {
  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    private readonly req: Request,
    private readonly routeDb: () => Db,
  ) {}

  /** The request's transaction when one is open (idempotency, audit), else the database. */
  get db(): Executor {
    return this.req.tx ?? this.routeDb();
  }
}

export function routerOf<D>(routes: readonly RouteDefinition<D>[], deps: D, wiring: RouteWiring = {}): Router {
  const router = Router();
  for (const route of routes) {
    const chain: RequestHandler[] = [];
    if (route.access === 'responder') chain.push(required(wiring.responder, 'responder authentication', route));
    else if (route.access === 'person') chain.push(required(wiring.person, 'console sessions', route)(route.guardOptions));
    else if (route.access === 'staff') chain.push(required(wiring.staff, 'staff sessions', route)(route.guardOptions));
    else if (route.access !== 'public') chain.push(required(wiring.guard, 'a guard', route)(route.access, route.guardOptions));
    const precheck = route.precheck?.bind(route);
    if (precheck) {
      chain.push(async (req, _res, next) => {
        await precheck(req, deps);
        next();
      });
    }
    if (route.idempotent) chain.push(required(wiring.idempotent, 'idempotency', route)(route.idempotent === true ? 'plain' : route.idempotent));
    // After idempotency: a replay is not a change; the entry commits in the request's transaction.
    if (route.method !== 'get' && route.access !== 'public' && route.access !== 'responder' && route.access !== 'staff' && route.audited !== false && wiring.audit) chain.push(wiring.audit(route as RouteDefinition<never>));
    const routeDb = route.lane === 'reads' && wiring.readDb ? () => wiring.readDb! : () => required(wiring.db, 'the database', route);
    chain.push(async (req, res) => {
      const params = route.params && parseInput(route.params, req.params, 'params');
      const query = route.query && parseInput(route.query, req.query, 'query');
      const body = route.body && parseInput(route.body, req.body, 'body');
      const run = () => route.handler(new ParsedInput(params, query, body, req, routeDb), req, res, deps);
      // A broad read waits for the lane in turns between organizations (server/db/fair-queue.ts).
      await (route.lane === 'reads' ? asReadParty(req.auth?.organization.organization_id ?? '', run) : run());
    });
    router[route.method](route.path, ...chain);
  }
  return router;
}

/** `/incidents/:incidentId` → `/incidents/{incidentId}`. */
export const openApiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}');

function operationOf(route: RouteDefinition<never>): ZodOpenApiOperationObject {
  const scope =
    route.access === 'public' || route.access === 'responder'
      ? undefined
      : route.access === 'person'
        ? `Console session (cookie)${route.guardOptions?.roles ? `; roles ${route.guardOptions.roles.join(', ')}` : ''}.`
        : route.access === 'staff'
          ? `Staff session (cookie, second step passed); ${route.guardOptions?.staffRoles ? `staff roles ${route.guardOptions.staffRoles.join(', ')}` : 'every staff role'}.`
        : route.guardOptions?.anyScopeOf
          ? `Any of the scopes ${[route.access, ...route.guardOptions.anyScopeOf].map((scope) => `\`${scope}\``).join(', ')}.`
          : `Scope \`${route.access}\`.`;
  const everySite = route.guardOptions?.everySite ? 'Only for a key or person not limited to sites.' : undefined;
  const description = [scope, everySite, route.description].filter(Boolean).join(' ');
  const requestParams = {
    ...(route.params && { path: route.params }),
    ...(route.query && { query: route.query }),
    ...(route.headers && { header: route.headers }),
  };
  return {
    operationId: route.operationId,
    ...(route.tags && { tags: route.tags }),
    summary: route.summary,
    ...(description && { description }),
    ...(route.access === 'public' && { security: [] }),
    ...(Object.keys(requestParams).length && { requestParams }),
    ...(route.idempotent && { parameters: [idempotencyHeader] }),
    // A body the schema accepts empty may be left out (parseInput reads a missing body as `{}`);
    // any other is required, which typed clients and mock servers take from `required: true`.
    ...(route.body && { requestBody: { ...json(route.body), required: !route.body.safeParse({}).success } }),
    responses: route.responses,
  };
}

/** The OpenAPI paths object of the definitions, paths in Express's order of first appearance. */
export function pathsOf(routes: readonly RouteDefinition<never>[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method] = operationOf(route);
  return paths;
}
