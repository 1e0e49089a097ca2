import { z } from 'zod';
import { Environment, queryNumber, Timestamp } from './common.ts';

export const CoverageQuery = z.object({
  latitude: queryNumber(z.number().min(-90).max(90)).meta({ description: 'Latitude of the place to cover: WGS 84 decimal degrees (-90 to 90)', example: 6.4281 }),
  longitude: queryNumber(z.number().min(-180).max(180)).meta({ description: 'Longitude: WGS 84 decimal degrees (-180 to 180)', example: 3.4219 }),
});
export type CoverageQuery = z.infer<typeof CoverageQuery>;

export const DispatchCoverage = z
  .object({
    environment: Environment,
    latitude: z.number(),
    longitude: z.number(),
    covered: z.boolean().meta({
      description: 'True when an SOS here would be offered to at least one responder now (always true in sandbox, where the simulated network answers)',
    }),
    simulated: z.boolean().meta({
      description: 'True in sandbox: incidents are played out by the simulated responder network, which covers everywhere; no real responder is ever offered them',
    }),
    responders_within_radius: z.int().min(0).meta({
      description:
        'Live: responders on duty (available, with a known location, not busy with another incident) within `dispatch_radius_km`, the ones the first dispatch round would offer an SOS here to. Sandbox: the simulated network\'s size',
      example: 2,
    }),
    nearest_responder_km: z.int().min(0).nullable().meta({
      description: 'Distance to the nearest of them, rounded to the kilometre; null when there is none',
      example: 4,
    }),
    dispatch_radius_km: z.number().meta({ description: "The dispatch radius of the service's first round of offers", example: 15 }),
    checked_at: Timestamp,
  })
  .meta({ id: 'DispatchCoverage', description: "Whether the service's responder network covers a place now" });
export type DispatchCoverage = z.infer<typeof DispatchCoverage>;

export const CoverageEnvelope = z.object({ coverage: DispatchCoverage }).meta({ id: 'DispatchCoverageEnvelope' });
export type CoverageEnvelope = z.infer<typeof CoverageEnvelope>;
