import { z } from 'zod';

/** Every timestamp the API answers: ISO 8601, UTC, milliseconds (`2026-11-22T10:00:00.000Z`). */
export const Timestamp = z.iso.datetime().meta({
  description: 'ISO 8601 timestamp, UTC, millisecond precision',
  example: '2026-11-22T10:00:00.000Z',
});

/** A timestamp a client sends: any ISO 8601 instant with an offset, normalised to UTC by the server. */
export const TimestampInput = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601 timestamp with a zone (Z or ±hh:mm)', example: '2026-11-22T10:00:00Z' });

export const ErrorBody = z
  .object({
    code: z.int().meta({ description: 'Equals the HTTP status', example: 400 }),
    message: z.string().meta({ example: 'subject.name is required' }),
  })
  .meta({ id: 'Error', description: 'Every error the API answers, unknown routes and malformed JSON included.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const MAX_PAGE_LIMIT = 100;

/** `page` and `limit` as every list takes them; out of range is a 400 naming the field. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).meta({ description: 'Page number, from 1' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(20)
    .meta({ description: `Results per page, 1 to ${MAX_PAGE_LIMIT}` }),
});

/** `from_date` (inclusive) and `to_date` (exclusive) filter on `created_at`. */
export const DateRangeQuery = z.object({
  from_date: TimestampInput.optional().meta({ description: 'Only items created at or after this instant' }),
  to_date: TimestampInput.optional().meta({ description: 'Only items created before this instant' }),
});

export function paginated<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      results: z.array(item),
      page: z.int(),
      limit: z.int(),
      totalPages: z.int(),
      totalResults: z.int(),
    })
    .meta({ id, description: 'One page of results, newest first' });
}

export interface Page<T> {
  results: T[];
  page: number;
  limit: number;
  totalPages: number;
  totalResults: number;
}

export const Environment = z.enum(['live', 'sandbox']).meta({
  id: 'Environment',
  description: 'Chosen by the key prefix: `svc_live_` is live, `svc_test_` is sandbox. Data never crosses environments.',
});
export type Environment = z.infer<typeof Environment>;
