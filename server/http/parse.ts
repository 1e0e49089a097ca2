import type { z } from 'zod';
import type { FieldProblem } from '../../shared/schemas/common.ts';
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

/** Every problem of a failed parse, one per field (an unknown-fields issue becomes one per field). */
export function fieldProblems(issues: readonly z.core.$ZodIssue[], where: string, input: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const parts: FieldProblem[] =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: fieldPath([...issue.path, key]), message: `${fieldPath([...issue.path, key])}: unknown field` }))
        : [{ field: fieldPath(issue.path) || where, message: describeIssue(issue, where, input) }];
    // One problem per field: zod may report a union's branches separately for the same value.
    for (const part of parts) {
      if (seen.has(part.field)) continue;
      seen.add(part.field);
      problems.push(part);
    }
  }
  return problems;
}

/**
 * Parses a request part with its shared schema. A failure is a 400 whose `message` is the first
 * problem, word for word as it always was (kiosks in the field match phrases in it), and whose
 * `errors` lists every problem.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const input = where === 'body' && value === undefined ? {} : value;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ApiError(400, describeIssue(result.error.issues[0]!, where, input), {}, fieldProblems(result.error.issues, where, input));
}
