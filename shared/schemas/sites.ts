import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { z } from 'zod';
import { PageQuery, Timestamp, nullMeansAbsent, paginated } from './common.ts';

/**
 * Sites (issue #34): an estate or premises of an organization, with its gates (entry points)
 * and the numbers to call when nobody comes. Sites belong to the organization, shared by its
 * live and sandbox environments.
 */

/**
 * A phone number as people in Nigeria write it (0803 123 4567, +234 803 123 4567, 234803...):
 * checked with libphonenumber-js's metadata and stored in E.164 (+2348031234567). A number
 * without a country code is read as Nigerian.
 */
/**
 * Nigeria's emergency short codes, which a call list names as they are dialled ("Police 112"):
 * 112 (national emergency), 199 (police, fire, ambulance), 767 (Lagos State emergency), 122
 * (road safety). Called, never texted: an SMS goes to full numbers only.
 */
export const EMERGENCY_NUMBERS: readonly string[] = ['112', '199', '767', '122'];

/** Whether a call-list number is a full one (E.164) that a text can go to. */
export const textable = (phone: string): boolean => phone.startsWith('+');

export const PhoneNumber = z
  .string()
  .trim()
  .min(3)
  .max(40)
  .transform((value, ctx) => {
    if (EMERGENCY_NUMBERS.includes(value)) return value;
    const parsed = parsePhoneNumberFromString(value, 'NG');
    if (!parsed || !parsed.isValid()) {
      ctx.addIssue({ code: 'custom', message: 'must be a phone number, e.g. +234 803 123 4567 or 0803 123 4567' });
      return z.NEVER;
    }
    return parsed.number;
  })
  .meta({ description: 'A phone number; a number without a country code is read as Nigerian. Stored and answered in E.164; or an emergency short code (112, 199, 767, 122), kept as dialled and only called, never texted', example: '+2348031234567' });

/** The languages Tsaro writes to people in: the kiosk's three (English, Hausa, Nigerian Pidgin). */
export const TEXT_LANGUAGES = ['en', 'ha', 'pcm'] as const;

export const CallListEntry = z
  .strictObject({
    name: z.string().trim().min(1).max(80).meta({ example: 'Estate control' }),
    phone: PhoneNumber,
    language: z.enum(TEXT_LANGUAGES).optional().meta({ description: 'The language texts to this number are written in: `en` (default), `ha` (Hausa) or `pcm` (Nigerian Pidgin)' }),
  })
  .meta({ id: 'CallListEntry' });

/** A call-list entry as the API answers it: whether texts reach the number, and if not why (issue #48). */
export const CallListView = z
  .object({
    name: z.string(),
    phone: z.string(),
    language: z.enum(TEXT_LANGUAGES).optional(),
    texted: z.boolean().meta({ description: 'Whether alarm texts go to this number: a mobile number in E.164. An emergency short code (112) or a landline is called, never texted' }),
    not_texted_reason: z.string().nullable().meta({ description: 'Why texts do not go to it, in words to show beside the number; null when they do', example: 'An emergency short code: called, never texted' }),
  })
  .meta({ id: 'CallListEntryView' });

export const CallList = z
  .array(CallListEntry)
  .max(10)
  .meta({ description: "Who to call when nobody comes, in the order to call them (at most 10): the estate's control room, the police, the chairman" });

/** An IANA time zone the runtime knows (Africa/Lagos). */
const TimeZone = z
  .string()
  .trim()
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone, e.g. Africa/Lagos')
  .meta({ example: 'Africa/Lagos' });

const SiteLocation = z
  .strictObject({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
  })
  .meta({ id: 'SiteLocation', description: 'Where the site is: WGS 84 decimal degrees' });

const SiteName = z.string().trim().min(1).max(120);
const EntryPointName = z.string().trim().min(1).max(200).meta({ example: 'North gate' });

export const EntryPoint = z
  .object({
    entry_point_id: z.string().meta({ example: 'ent_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    site_id: z.string(),
    name: z.string(),
    former_names: z
      .array(z.string())
      .meta({ description: 'Names it had before it was renamed, oldest first: a kiosk that still sends one reaches this gate (a new gate given one of them takes it over)' }),
    retired_at: Timestamp.nullable().meta({ description: 'Retired (removed while codes were bound to it): it takes no new code; its codes stay valid and its kiosks still reach it' }),
    created_at: Timestamp,
  })
  .meta({ id: 'EntryPoint', description: "A gate of a site, named uniquely within it (what a kiosk's `entry_point` names)" });
export type EntryPoint = z.infer<typeof EntryPoint>;

export const Site = z
  .object({
    site_id: z.string().meta({ example: 'site_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    name: z.string().meta({ example: 'Admiralty Estate' }),
    address: z.string().nullable(),
    location: SiteLocation.nullable(),
    time_zone: z.string().meta({ example: 'Africa/Lagos' }),
    call_list: z.array(CallListView),
    is_default: z.boolean().meta({ description: 'The organization\'s first site (made by migration from its existing gates): where a code or visit that names no site belongs' }),
    entry_points: z.array(EntryPoint),
    archived_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Site' });
export type Site = z.infer<typeof Site>;

export const CreateSiteRequest = nullMeansAbsent(
  z.strictObject({
    name: SiteName.meta({ description: 'Unique among the organization\'s sites', example: 'Admiralty Estate' }),
    address: z.string().trim().min(1).max(300).optional(),
    location: SiteLocation.optional(),
    time_zone: TimeZone.default('Africa/Lagos'),
    call_list: CallList.default([]),
    entry_points: z.array(EntryPointName).max(50).default([]).meta({ description: 'Its gates, by name, unique within the site' }),
  }),
).meta({ id: 'CreateSiteRequest' });
export type CreateSiteRequest = z.infer<typeof CreateSiteRequest>;

/** Each field given is changed; `null` clears `address` and `location`. */
export const UpdateSiteRequest = z
  .strictObject({
    name: SiteName.optional(),
    address: z.string().trim().min(1).max(300).nullable().optional(),
    location: SiteLocation.nullable().optional(),
    time_zone: TimeZone.optional(),
    call_list: CallList.optional(),
    is_default: z
      .boolean()
      .optional()
      .meta({
        description:
          "`true` makes this site the organization's default (where what names no site belongs) in place of the one before, which may then be archived. Only `true`: a site stops being the default when another becomes it. For a key or person of every site; an archived site is not made the default (409)",
      }),
  })
  .meta({ id: 'UpdateSiteRequest' });
export type UpdateSiteRequest = z.infer<typeof UpdateSiteRequest>;

export const CreateEntryPointRequest = z.strictObject({ name: EntryPointName }).meta({ id: 'CreateEntryPointRequest' });
export const UpdateEntryPointRequest = z
  .strictObject({ name: EntryPointName.meta({ description: 'Its new name, unique within the site; the old one stays a former name, so kiosks that still send it reach this gate' }) })
  .meta({ id: 'UpdateEntryPointRequest' });

export const SiteIdParams = z.object({ siteId: z.string().max(100).meta({ example: 'site_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }) });
export const EntryPointIdParams = SiteIdParams.extend({ entryPointId: z.string().max(100).meta({ example: 'ent_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }) });

export const SITE_STATUSES = ['active', 'archived'] as const;
export const ListSitesQuery = PageQuery.extend({
  status: z.enum(SITE_STATUSES).optional().meta({ description: '`active` (not archived) or `archived`; all when left out' }),
});

export const SiteEnvelope = z.object({ site: Site }).meta({ id: 'SiteResponse' });
export const SitePage = paginated(Site, 'SitePage');
export const EntryPointEnvelope = z.object({ entry_point: EntryPoint }).meta({ id: 'EntryPointResponse' });
export const RemovedEntryPoint = z
  .object({
    entry_point: EntryPoint,
    removed: z
      .boolean()
      .meta({ description: '`true`: no code was bound to it, and it is gone (as it was is answered); `false`: codes are bound to it, so it is retired instead (`retired_at`)' }),
  })
  .meta({ id: 'RemovedEntryPointResponse' });
export const EntryPointList = z.object({ results: z.array(EntryPoint) }).meta({ id: 'EntryPointList' });
