import type { z } from 'zod';
import { ApiError } from './errors.ts';

/** `visitors[3].visitor_name`, `location.coordinates[1]`: how a message names a failing field. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

export function describeIssue(issue: z.core.$ZodIssue, where: string, input: unknown): string {
  const path = fieldPath(issue.path);
  const field = path || where;
  if (path && issue.code !== 'unrecognized_keys' && valueAt(input, issue.path) === undefined) return `${field} is required`;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => fieldPath([...issue.path, key]));
    return `${keys.join(', ')}: unknown field${keys.length > 1 ? 's' : ''}`;
  }
  return `${field}: ${issue.message}`;
}

/** Parses a request part with its shared schema; the first problem becomes a 400 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const input = where === 'body' && value === undefined ? {} : value;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new ApiError(400, describeIssue(issue, where, input));
}
