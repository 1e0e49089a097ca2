import { ATTRIBUTION, CITATIONS } from '../../shared/schemas/threat.ts';

const currency =
  'Every answer carries `data: {through, sources, country}`: the day of the newest event that could have counted and the sources behind it, ' +
  'so "quiet" (recent data, nothing near) reads apart from "no data" (old `through`).';
/** What every point-based threat answer says after its scope. */
export const THREAT_COMMON = `Coverage: Sub-Saharan Africa (a point outside is a 400 naming the field). ${currency} ${ATTRIBUTION}`;

export const THREAT_TAG_DESCRIPTION =
  'Scores and zones from one model over public event data (UCDP GED; ACLED where the operator imports a licensed copy), ' +
  'community reports (half weight, times their confidence) and the service\'s own verified incidents. UCDP Candidate events ' +
  '(provisional) weigh half a GED event, a quarter when the source flags them for checking. The model, its weights and the data\'s ' +
  'gaps are in docs/threat-model.md. Deterministic for the same data and day.\n\n' +
  'Shipped data, by country and source (per-year counts and gaps: `GET /threat/coverage`): Nigeria, UCDP GED 1990-2021 complete; ' +
  'GED 25.1 2022-2024 complete for Borno, Adamawa, Yobe and the farmer-herder events of Benue, Nasarawa and Taraba, partial elsewhere; ' +
  '**no events for 2025**; UCDP Candidate events (provisional) January-February 2026. Central African Republic, GED 23.1 to 2022; ' +
  'South Sudan, GED to 2021; other Sub-Saharan countries, a random sample of GED 25.1 to 2024 and UCDP Candidate events January-February 2026. ' +
  `Nothing shipped after 2026-02-28.\n\n${ATTRIBUTION}\n\nCite: ${CITATIONS.join(' ')}`;
