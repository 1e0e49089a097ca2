import { z } from 'zod';
import { Timestamp } from '../../shared/schemas/common.ts';

const Check = z.enum(['ok', 'down']);

export const Health = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({ description: '`degraded` when any part in `checks` is `down`' }),
    api_version: z.literal('v1'),
    timestamp: Timestamp,
    checks: z
      .object({
        database: Check.meta({ description: '`down`: the database did not answer within 2 s (the answer is then a 503)' }),
        redis: Check.optional().meta({
          description:
            'Present when REDIS_URL is set. `down`: Redis did not answer; rate limits are kept per host until it answers again, and every request is still served (the answer stays 200)',
        }),
      })
      .meta({ description: 'Each part the service depends on' }),
    indexes: z
      .object({
        state: z.enum(['complete', 'building', 'waiting', 'failed']).meta({
          description:
            '`complete`: every index of this version is built. After an upgrade on PostgreSQL the new indexes are built while the service runs (`building` on the host that builds them, `waiting` on the others); until then the reads they serve answer, only slower. `failed`: tried again at the next start',
        }),
        pending: z.int().meta({ description: 'Indexes not yet built' }),
        building: z.string().nullable().meta({ description: 'The index this host is building now' }),
      })
      .optional()
      .meta({ description: "Present only while an upgrade's indexes are still to be built (PostgreSQL builds them while it serves; SQLite before it serves): absent, every index is there" }),
  })
  .meta({ id: 'Health' });
