import type { Responder } from '../../shared/schemas/responders.ts';
import type { ResponderRow } from '../db/schema.ts';

export function rowToResponder(row: ResponderRow): Responder {
  return {
    responder_id: row.responder_id,
    name: row.name,
    phone: row.phone,
    environment: row.environment as Responder['environment'],
    status: row.status as Responder['status'],
    available: Boolean(row.available),
    location: row.latitude === null || row.longitude === null ? null : { latitude: Number(row.latitude), longitude: Number(row.longitude) },
    location_at: row.location_at,
    created_at: row.created_at,
  };
}
