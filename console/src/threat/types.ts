import type { Schemas } from '../api.ts';

/** The threat API's answers, as the OpenAPI document declares them. */
export type DangerZone = Schemas['DangerZone'];
export type Heatmap = Schemas['HeatmapResponse'];
export type RouteSafety = Schemas['RouteSafety'];
export type SafetyScore = Schemas['SafetyScore'];
export type ThreatCoverage = Schemas['ThreatCoverage'];
