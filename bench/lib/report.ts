import type { SectionResult } from './section.ts';

function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (rightAligned[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The printed form of one section: results table, the section's own tables, aims with met/not met, notes. */
export function formatSection(result: SectionResult): string {
  const out: string[] = [`== ${result.name} ==`, ''];
  const tables = result.tables ?? [];
  if (result.rows.length || !tables.length) {
    // CPU per request (bench/lib/cpu.ts), where the section measured it.
    const withCpu = result.rows.some((row) => row.measurement.cpu);
    out.push(
      table(
        ['target', 'engine', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'x bare', ...(withCpu ? ['CPU µs/req: srv+db+load', 'busy'] : [])],
        result.rows.map((row) => {
          const m = row.measurement;
          const cpu = m.cpu;
          return [
            row.target,
            row.engine,
            fmt(m.requestsPerSecond),
            fmt(m.latencyMs.p50, 2),
            fmt(m.latencyMs.p99, 2),
            String(m.errors),
            String(m.non2xx),
            row.ratioToBare === undefined ? '1.00 (base)' : row.ratioToBare.toFixed(2),
            ...(withCpu
              ? cpu
                ? [`${fmt(cpu.server)}+${fmt(cpu.database)}+${fmt(cpu.load)} = ${fmt(cpu.server + cpu.database + cpu.load)}`, `${fmt(cpu.machineBusy * 100)} %`]
                : ['', '']
              : []),
          ];
        }),
        [false, false, true, true, true, true, true, true, true, true],
      ),
    );
  }
  for (const [i, extra] of tables.entries()) {
    if (i > 0 || result.rows.length) out.push('');
    out.push(`${extra.title}:`, table(extra.header, extra.rows, extra.rightAligned ?? extra.header.map((_, column) => column >= 2)));
  }
  if (result.aims.length) {
    out.push('', 'Aims:');
    out.push(
      table(
        ['aim', 'engine', 'actual', 'result'],
        result.aims.map((a) => [a.aim, a.engine, a.actual, a.met ? 'met' : 'NOT MET']),
        [false, false, true, false],
      ),
    );
  }
  if (result.notes.length) out.push('', 'Notes:', ...result.notes.map((n) => `- ${n}`));
  return out.join('\n');
}
