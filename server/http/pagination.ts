import type { Page } from '../../shared/schemas/common.ts';

/** A count of a list's matches: exact, or stopped at a ceiling (a free-text search's). */
export interface Total {
  n: number;
  capped?: boolean;
}

/**
 * The reference's list shape, `{results, page, limit, totalPages, totalResults}`, with the
 * contract's `next_cursor` and, for a count stopped at its ceiling, `totalResultsCapped`.
 */
export function toPage<T>(results: T[], total: number | Total, paged: { page: number; nextCursor: string | null }, limit: number): Page<T> {
  const { n, capped } = typeof total === 'number' ? { n: total, capped: false } : total;
  return {
    results,
    page: paged.page,
    limit,
    totalPages: Math.ceil(n / limit),
    totalResults: n,
    ...(capped && { totalResultsCapped: true }),
    next_cursor: paged.nextCursor,
  };
}

/** A `from_date`/`to_date` as the stored form (UTC, milliseconds), so it compares as text with `created_at`. */
export function utcInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
