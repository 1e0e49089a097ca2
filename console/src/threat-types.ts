import type { z } from 'zod';
import type * as threat from '../../shared/schemas/threat.ts';

/** The threat API's answers, typed from the schemas the server validates with (types only: no zod in the map's code). */
export type DangerZone = z.infer<typeof threat.DangerZone>;
export type Heatmap = z.infer<typeof threat.Heatmap>;
export type RouteSafety = z.infer<typeof threat.RouteSafety>;
export type SafetyScore = z.infer<typeof threat.SafetyScore>;
export type ThreatCoverage = z.infer<typeof threat.ThreatCoverage>;
