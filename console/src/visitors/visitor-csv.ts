import { parse } from 'csv-parse/browser/esm/sync';
import type { z } from 'zod';
import { BulkVisitor } from '../../../shared/schemas/access.ts';

export type Visitor = z.infer<typeof BulkVisitor>;

/** The API takes at most this many visitors in one bulk request. */
export const BATCH = 50;
/** A CSV larger than this is refused whole: the screen is for a guest list, not a city. */
export const MOST_ROWS = 2_000;

/** Header names a spreadsheet may use for each field. */
const ALIASES: Record<string, keyof Visitor> = {
  visitor_name: 'visitor_name',
  name: 'visitor_name',
  'full name': 'visitor_name',
  visitor_phone: 'visitor_phone',
  phone: 'visitor_phone',
  'phone number': 'visitor_phone',
  visitor_email: 'visitor_email',
  email: 'visitor_email',
  entry_point: 'entry_point',
  gate: 'entry_point',
  'entry point': 'entry_point',
  host_user_id: 'host_user_id',
  host: 'host_user_id',
  max_uses: 'max_uses',
  uses: 'max_uses',
};

export interface VisitorList {
  visitors: Visitor[];
  /** Every problem in the file, each naming its row (the spreadsheet's, header = row 1) and field. */
  problems: string[];
}

/**
 * A guest list from a CSV with a header row, checked whole by the same schema the server
 * applies, so a bad row is found before the first batch is sent and nothing is half-issued.
 */
export function readVisitorCsv(text: string): VisitorList {
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: true }) as string[][];
  } catch (error) {
    return { visitors: [], problems: [`The file is not CSV: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const [header, ...body] = rows;
  if (!header) return { visitors: [], problems: ['The file is empty.'] };
  const fields = header.map((name) => ALIASES[name.toLowerCase()] ?? null);
  const problems: string[] = [];
  const unknown = header.filter((_, i) => fields[i] === null);
  if (unknown.length > 0) problems.push(`Unknown columns: ${unknown.join(', ')}. Use visitor_name, visitor_phone, visitor_email, entry_point, host_user_id, max_uses.`);
  if (!fields.includes('visitor_name') || !fields.includes('visitor_phone')) problems.push('The header must name visitor_name and visitor_phone.');
  if (body.length === 0) problems.push('The file has a header and no visitors.');
  if (body.length > MOST_ROWS) problems.push(`The file has ${body.length} visitors; at most ${MOST_ROWS} at once.`);
  if (problems.length > 0) return { visitors: [], problems };
  const visitors: Visitor[] = [];
  body.forEach((cells, index) => {
    const row: Record<string, unknown> = {};
    fields.forEach((field, column) => {
      const cell = cells[column]?.trim();
      if (field && cell) row[field] = field === 'max_uses' ? Number(cell) : cell;
    });
    const checked = BulkVisitor.safeParse(row);
    if (checked.success) visitors.push(checked.data);
    else for (const issue of checked.error.issues) problems.push(`Row ${index + 2}: ${issue.path.join('.') || 'row'}: ${issue.message}`);
  });
  return problems.length > 0 ? { visitors: [], problems } : { visitors, problems };
}

/** The list in the API's batches, in order. */
export function batches<T>(list: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
