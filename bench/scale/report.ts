/** The year's build in words and tables (bench/scale.ts and `npm run scale`). */
import type { GeneratedYear } from './generate.ts';

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export function describeYear(year: GeneratedYear): string[] {
  const { size, buildSeconds, big } = year;
  return [
    `${year.engine}: ${Object.entries(big.sizes).map(([k, v]) => `${v.toLocaleString('en')} ${k}`).join(', ')} (and a small organization)`,
    `built in ${buildSeconds.total} s (${Object.entries(buildSeconds).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v} s`).join(', ')})`,
    `database ${mb(size.bytes)}: tables ${mb(size.tableBytes)}, indexes ${mb(size.indexBytes)} (${Math.round((100 * size.indexBytes) / Math.max(1, size.tableBytes))}% of the tables; text indexes ${mb(size.textIndexBytes)})`,
    ...size.tables.map((t) => `  ${t.name}: table ${mb(t.tableBytes)}, indexes ${mb(t.indexBytes)}`),
  ];
}
