import type { Responder } from '../../shared/schemas/responders.ts';
import { hashSecret, randomBase62 } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Executor, ResponderRow } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { rowToResponder } from './responder.ts';

export class ResponderInputError extends Error {}

export interface NewResponder {
  name: string;
  phone: string;
  latitude: number;
  longitude: number;
  environment: 'live' | 'sandbox';
}

/** Adds a responder to the network, available at the given place; the token is shown once. */
export async function addResponder(db: Executor, clock: Clock, input: NewResponder): Promise<{ responder: Responder; token: string }> {
  const name = input.name.trim();
  const phone = input.phone.trim();
  if (!name || name.length > 200) throw new ResponderInputError('--name: 1 to 200 characters');
  if (!/^\+?[0-9 ()-]{5,32}$/.test(phone)) throw new ResponderInputError('--phone: a phone number, e.g. +2348030000000');
  if (!(input.latitude >= -90 && input.latitude <= 90)) throw new ResponderInputError('--lat: a latitude from -90 to 90');
  if (!(input.longitude >= -180 && input.longitude <= 180)) throw new ResponderInputError('--lng: a longitude from -180 to 180');
  const token = `rtk_${randomBase62(40)}`;
  const at = clock.now().toISOString();
  const row: ResponderRow = {
    responder_id: newId('rsp', clock.now()),
    environment: input.environment,
    name,
    phone,
    token_hash: hashSecret(token),
    token_hint: `rtk_…${token.slice(-4)}`,
    status: 'active',
    available: 1,
    latitude: input.latitude,
    longitude: input.longitude,
    location_at: at,
    created_at: at,
    updated_at: at,
  };
  await db.insertInto('responders').values(row).execute();
  return { responder: rowToResponder(row), token };
}

export async function listResponders(db: Executor, environment?: string): Promise<Responder[]> {
  let query = db.selectFrom('responders').selectAll().orderBy('created_at').orderBy('responder_id');
  if (environment) query = query.where('environment', '=', environment);
  return (await query.execute()).map(rowToResponder);
}

/** A deactivated responder is never offered an incident and its token stops working. */
export async function deactivateResponder(db: Executor, clock: Clock, responderId: string): Promise<Responder | undefined> {
  const at = clock.now().toISOString();
  await db.updateTable('responders').set({ status: 'deactivated', available: 0, updated_at: at }).where('responder_id', '=', responderId).execute();
  const row = await db.selectFrom('responders').selectAll().where('responder_id', '=', responderId).executeTakeFirst();
  return row && rowToResponder(row);
}

export async function findResponderByToken(db: Executor, token: string): Promise<ResponderRow | undefined> {
  return db.selectFrom('responders').selectAll().where('token_hash', '=', hashSecret(token)).executeTakeFirst();
}

/** The heartbeat: availability and where the responder is now. */
export async function reportAvailability(
  db: Executor,
  clock: Clock,
  responderId: string,
  report: { available: boolean; latitude: number; longitude: number },
): Promise<Responder> {
  const at = clock.now().toISOString();
  await db
    .updateTable('responders')
    .set({ available: report.available ? 1 : 0, latitude: report.latitude, longitude: report.longitude, location_at: at, updated_at: at })
    .where('responder_id', '=', responderId)
    .execute();
  return rowToResponder((await db.selectFrom('responders').selectAll().where('responder_id', '=', responderId).executeTakeFirstOrThrow())!);
}
