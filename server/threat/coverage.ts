import { iso1A2Code, isIn } from '@rapideditor/country-coder';

/** UN M49 "Sub-Saharan Africa". */
const SUB_SAHARAN_AFRICA = '202';
/**
 * Sudan is "Northern Africa" in M49 but Sub-Saharan in the World Bank's grouping and in the
 * shipped UCDP extract, so it is covered too.
 */
const ALSO_COVERED = new Set(['SD']);

/**
 * Whether a point falls in a covered country, by the country borders (and territorial waters)
 * of @rapideditor/country-coder, which works offline.
 */
export function isCovered(latitude: number, longitude: number): boolean {
  const point: [number, number] = [longitude, latitude];
  if (isIn(point, SUB_SAHARAN_AFRICA)) return true;
  const country = iso1A2Code(point);
  return country !== null && ALSO_COVERED.has(country);
}

/** ISO 3166-1 alpha-2 code of the country (or its territorial waters) at a point; null at sea or outside any. */
export function countryAt(latitude: number, longitude: number): string | null {
  return iso1A2Code([longitude, latitude]);
}

export const COVERAGE_TEXT = 'Sub-Saharan Africa (UN M49 region 202, and Sudan)';
