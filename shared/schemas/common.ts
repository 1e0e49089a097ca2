import { z } from 'zod';
import { DAY_MS } from '../time.ts';

/** Every timestamp the API answers: ISO 8601, UTC, milliseconds (`2026-11-22T10:00:00.000Z`). */
export const Timestamp = z.iso.datetime().meta({
  description: 'ISO 8601 timestamp, UTC, millisecond precision',
  example: '2026-11-22T10:00:00.000Z',
});

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A date or instant a client sends, normalised to the API's UTC form. People type dates without
 * times and many clients drop the zone: `2026-11-22` is that day in UTC (`day` says which end:
 * `start` for `from_date`, `end` for `to_date` and `valid_until`), a date-time without a zone is UTC.
 * `exclusiveEnd` gives the next midnight for filters whose upper bound is exclusive.
 */
function instantInput(day: 'none' | 'start' | 'end' | 'exclusiveEnd') {
  const accepted = day === 'none' ? 'an ISO 8601 date-time (UTC when no zone is given)' : 'an ISO 8601 date-time or a date (YYYY-MM-DD, UTC)';
  return z
    .string()
    .transform((text, ctx) => {
      let iso: string | undefined;
      if (DATE_TIME.test(text)) iso = HAS_ZONE.test(text) ? text : `${text}Z`;
      else if (day !== 'none' && DATE_ONLY.test(text)) iso = `${text}T00:00:00.000Z`;
      const time = iso === undefined ? NaN : Date.parse(iso);
      if (Number.isNaN(time) || !isCalendarDate(text)) {
        ctx.addIssue({ code: 'custom', message: `expected ${accepted}` });
        return z.NEVER;
      }
      const dateOnly = DATE_ONLY.test(text);
      const shifted = !dateOnly ? time : day === 'end' ? time + DAY_MS - 1 : day === 'exclusiveEnd' ? time + DAY_MS : time;
      return new Date(shifted).toISOString();
    })
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const key of Object.keys(jsonSchema)) if (key !== 'description' && key !== 'example') delete jsonSchema[key];
        Object.assign(jsonSchema, {
          type: 'string',
          pattern: day === 'none' ? DATE_TIME.source : `${DATE_ONLY.source}|${DATE_TIME.source}`,
        });
      },
    });
}

/** `2026-02-30` is no day, whatever Date.parse makes of it. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A timestamp a client sends: ISO 8601 with or without a zone (none means UTC), answered back in UTC. */
export const TimestampInput = instantInput('none').meta({
  description: 'ISO 8601 date-time; a value without a zone (Z or ±hh:mm) is UTC',
  example: '2026-11-22T10:00:00Z',
});
/** A start: a date alone is the start of that day, UTC. */
export const StartInstantInput = instantInput('start').meta({
  description: 'ISO 8601 date-time, or a date (YYYY-MM-DD: the start of that day, UTC); no zone means UTC',
  example: '2026-11-22',
});
/** An inclusive end, such as `valid_until`: a date alone is the last millisecond of that day, UTC. */
export const EndInstantInput = instantInput('end').meta({
  description: 'ISO 8601 date-time, or a date (YYYY-MM-DD: the end of that day, UTC); no zone means UTC',
  example: '2026-11-22T18:00:00Z',
});
/** An exclusive upper bound, such as `to_date`: a date alone lets the whole day in. */
const ExclusiveEndInstantInput = instantInput('exclusiveEnd');

const DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * A number in a query string, declared in the document as the number it is (with its range) and
 * read strictly: decimal text only. `z.coerce.number()` would read a blank value as 0 and accept
 * `0x10`, `1e2` and padding spaces.
 */
export function queryNumber(range: z.ZodNumber) {
  const declared = z.toJSONSchema(range) as Record<string, unknown>;
  delete declared.$schema;
  return z
    .string()
    .regex(DECIMAL, 'expected a decimal number')
    .transform(Number)
    .pipe(range)
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const key of ['type', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) delete jsonSchema[key];
        Object.assign(jsonSchema, declared);
      },
    });
}

/**
 * `null` for an optional field means the field is absent, as clients in many languages send it.
 * Applied to each request object: a field that is optional (or has a default) and does not take
 * `null` itself reads `null` as missing; required fields and fields where `null` means "clear"
 * are left as they are, and unknown fields stay a 400.
 */
export function nullMeansAbsent<Shape extends z.core.$ZodLooseShape>(object: z.ZodObject<Shape, z.core.$strict>) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(object.shape) as [string, z.ZodType][]) {
    shape[name] = field.isOptional() && !field.safeParse(null).success ? absentIfNull(field) : field;
  }
  return z.strictObject(shape as unknown as Shape);
}

/** `field` again, taking `null` as its absence (its default, if it has one); a wrong value still fails on `field`'s own check. */
function absentIfNull(field: z.ZodType): z.ZodType {
  const meta = z.globalRegistry.get(field);
  const fallback = field.safeParse(undefined);
  const absent = fallback.success ? fallback.data : undefined;
  const inner = field instanceof z.ZodOptional || field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : undefined;
  const wrapped = inner
    ? inner.nullish().transform((value) => (value === null || value === undefined ? absent : value))
    : z.union([field, z.null()]).transform((value) => (value === null ? absent : value));
  return meta ? wrapped.meta(meta) : wrapped;
}

export const FieldProblem = z
  .object({
    field: z.string().meta({ description: 'The field, as a path (`subject.name`, `visitors[2].visitor_phone`); `body`, `query` or `params` for the whole part', example: 'subject.name' }),
    message: z.string().meta({ description: 'The problem in words, naming the field', example: 'subject.name is required' }),
  })
  .meta({ id: 'FieldProblem' });
export type FieldProblem = z.infer<typeof FieldProblem>;

export const ErrorBody = z
  .object({
    code: z.int().meta({ description: 'Equals the HTTP status', example: 400 }),
    message: z.string().meta({ description: 'What went wrong; for invalid input, the first problem (the first of `errors`)', example: 'subject.name is required' }),
    errors: z
      .array(FieldProblem)
      .optional()
      .meta({ description: 'For invalid input (400): every problem found, one per field, the first of them being `message`. Absent on other errors.' }),
  })
  .meta({ id: 'Error', description: 'Every error the API answers, unknown routes and malformed JSON included.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const MAX_PAGE_LIMIT = 100;

/**
 * A list's free-text `search`, one rule for every list: its ends are trimmed (a search box's stray
 * space finds what the words find), and one of spaces only is no search at all, never a 400.
 */
export const searchQuery = (description: string) => z.string().trim().max(200).optional().meta({ description: `${description}. Spaces at either end are ignored; spaces only is no search.` });

/**
 * `page`, `limit` and `cursor` as every list takes them; out of range is a 400 naming the field.
 * `page` stays as the reference has it (an offset: a deep page costs its depth); `cursor` (a
 * page's `next_cursor`) opens the next page at any depth as fast as the first. Both together
 * are a 400 naming both.
 */
export const PageQuery = z.object({
  page: queryNumber(z.int().min(1).max(1_000_000)).optional().meta({ description: 'Page number, from 1 (default 1). Not with `cursor`.' }),
  limit: queryNumber(z.int().min(1).max(MAX_PAGE_LIMIT)).default(20).meta({ description: `Results per page, 1 to ${MAX_PAGE_LIMIT}` }),
  cursor: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: "A page's `next_cursor`: the page after it, at any depth as fast as the first (with the same filters; `limit` may change). Not with `page`." }),
});

/**
 * `from_date` (inclusive) and `to_date` (exclusive) filter on `created_at`. No examples: the
 * reference page's "Try it out" fills a query field from its example, and one fixed day in both
 * made every list answer empty.
 */
export const DateRangeQuery = z.object({
  from_date: instantInput('start').optional().meta({
    description: 'Only items created at or after this instant; a date (YYYY-MM-DD) means the start of that day, UTC',
  }),
  to_date: ExclusiveEndInstantInput.optional().meta({
    description: 'Only items created before this instant; a date (YYYY-MM-DD) means up to the end of that day, UTC',
  }),
});

/** The list shape's fields: the reference's five, `totalResultsCapped` and `next_cursor` (the contract). */
export function pageFields<T extends z.ZodType>(item: T) {
  return {
    results: z.array(item),
    page: z.int().meta({ description: "The page's number; on a cursor page, counted from the first page (exact while `limit` stayed the same)" }),
    limit: z.int(),
    totalPages: z.int(),
    totalResults: z.int().meta({ description: 'Every match of the filters: exact, but for a free-text `search`, whose count stops at 10,000 (`totalResultsCapped`)' }),
    totalResultsCapped: z
      .boolean()
      .optional()
      .meta({ description: 'Present and true when `totalResults` stopped at its ceiling (a `search` matching more than 10,000): there are at least that many' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page (as fast at any depth as the first); null on the last page' }),
  };
}

export function paginated<T extends z.ZodType>(item: T, id: string) {
  return z.object(pageFields(item)).meta({ id, description: 'One page of results, newest first' });
}

export interface Page<T> {
  results: T[];
  page: number;
  limit: number;
  totalPages: number;
  totalResults: number;
  totalResultsCapped?: boolean;
  next_cursor: string | null;
}

export const Environment = z.enum(['live', 'sandbox']).meta({
  id: 'Environment',
  description: 'Chosen by the key prefix: `svc_live_` is live, `svc_test_` is sandbox. Data never crosses environments.',
});
export type Environment = z.infer<typeof Environment>;

/** A body with nothing to say (an action's POST, an answer with no content). */
export const Empty = z.object({}).meta({ id: 'Empty' });

/**
 * A site named in a body or a query (`site_...`, issue #34): one of the caller's organization's
 * sites, or a 400 naming the field (another organization's site is unknown here, never a hint).
 */
export const SiteRef = z.string().trim().min(1).max(100).meta({ description: "One of the organization's sites (`GET /sites`)", example: 'site_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' });
/** An entry point named in a body (`ent_...`): one of the site's gates. */
export const EntryPointRef = z.string().trim().min(1).max(100).meta({ description: 'One of the site\'s entry points (`GET /sites/{siteId}/entry-points`)', example: 'ent_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' });

/** The sites a key, a person's role or a webhook endpoint is limited to (issue #34): null, every site. */
export const SiteLimit = z
  .array(z.string())
  .nullable()
  .meta({ description: 'The sites it is limited to; null: every site of the organization' });
/** Sites to limit something new to: each an active site the caller reaches; left out, the caller\'s own limit (every site for a caller who reaches them all). */
export const SiteLimitInput = z
  .array(SiteRef)
  .min(1)
  .max(100)
  .optional()
  .meta({ description: "Limits it to these sites (each an active site you reach; 400 naming `site_ids` otherwise). Left out: your own sites, or every site when you reach them all" });
