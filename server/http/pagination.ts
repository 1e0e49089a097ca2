import type { Page } from '../../shared/schemas/common.ts';

export interface PageRequest {
  page: number;
  limit: number;
}

export function pageWindow(query: PageRequest): { offset: number; limit: number } {
  return { offset: (query.page - 1) * query.limit, limit: query.limit };
}

/** The reference's list shape: `{results, page, limit, totalPages, totalResults}`. */
export function toPage<T>(results: T[], total: number, query: PageRequest): Page<T> {
  return { results, page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit), totalResults: total };
}

/** A `from_date`/`to_date` as the stored form (UTC, milliseconds), so it compares as text with `created_at`. */
export function utcInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
