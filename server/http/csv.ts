import type { Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';

/** A report's answer as a CSV file (`format=csv`): UTF-8 with its byte-order mark (shared/csv.ts), to save under `filename`. */
export function sendCsv(res: Response, filename: string, csv: string): void {
  res.type('text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '-')}"`);
  res.send(csv);
}

/** A 200 that answers JSON, or with `format=csv` the same figures as CSV. */
export function intervalResponse(schema: z.ZodType): ZodOpenApiResponsesObject {
  return {
    200: {
      description: 'The figures (JSON), or with `format=csv` a CSV file',
      content: {
        'application/json': { schema },
        'text/csv': { schema: z.string().meta({ description: 'RFC 4180, CRLF line ends, a header row; UTF-8 with a byte-order mark' }) },
      },
    },
  };
}
