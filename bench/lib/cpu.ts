import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent per request, by who spent it: the server that answered, the database (every
 * PostgreSQL process; SQLite runs inside the server), and this process, the load generator. All
 * three share the machine's cores, so a request's cost to the machine is their sum: the budget
 * a ratio between two rows is bound by (docs/benchmarks.md, "What an SOS costs the machine").
 *
 * Linux only (/proc); elsewhere nothing is measured. /proc counts in clock ticks (10 ms), so a
 * measured run of several seconds is needed for a figure to mean anything.
 */
export interface CpuPerRequest {
  /** µs of CPU per request in the server process (all its threads). */
  server: number;
  /** µs per request in PostgreSQL's processes (backends, WAL writer, checkpointer); 0 on SQLite. */
  database: number;
  /** µs per request in this process (autocannon). */
  load: number;
  /** Of the machine's cores, the share all three kept busy (1 = every core, all the time). */
  machineBusy: number;
}

interface Snapshot {
  server: number;
  database: number;
  load: NodeJS.CpuUsage;
  machine: { busy: number; total: number };
}

const TICK_US = 10_000;

/** utime + stime of a `/proc/<pid>/stat` line, in clock ticks (the command may hold spaces and parentheses). */
export function ticksOf(stat: string): number {
  // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** A process's `/proc/<pid>/stat` line, or undefined when it is gone (or never was). */
function statOf(pid: number | string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

function processTicks(pid: number): number {
  const stat = statOf(pid);
  return stat === undefined ? 0 : ticksOf(stat);
}

/** Every process whose command is `postgres` (the server and all its children). */
function postgresTicks(): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(name);
    if (stat?.includes(' (postgres) ')) total += ticksOf(stat);
  }
  return total;
}

function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
  // idle and iowait are the 4th and 5th.
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** Takes a snapshot now; `finish` gives the CPU per request since, or undefined off Linux. */
export function startCpuAccount(serverPid: number): { finish(requests: number): CpuPerRequest | undefined } {
  let before: Snapshot | undefined;
  const snapshot = (): Snapshot => ({
    server: processTicks(serverPid),
    database: postgresTicks(),
    load: process.cpuUsage(),
    machine: machineTicks(),
  });
  try {
    before = snapshot();
  } catch {
    before = undefined;
  }
  return {
    finish(requests) {
      if (!before || requests <= 0) return undefined;
      const after = snapshot();
      const load = process.cpuUsage(before.load);
      return {
        server: ((after.server - before.server) * TICK_US) / requests,
        database: ((after.database - before.database) * TICK_US) / requests,
        load: (load.user + load.system) / requests,
        machineBusy: (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total),
      };
    },
  };
}
