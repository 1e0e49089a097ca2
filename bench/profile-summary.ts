/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_SERVE_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=bench/results/prof"): self time by package/file and by function, and inclusive
 * time of the functions whose names match an optional pattern.
 *
 *   node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [inclusive-regex]
 *
 * PROFILE_LAST_S=<s>: only the profile's last <s> seconds (the load on a bench child comes last;
 * its start-up - compiling TypeScript, loading the threat data - would otherwise dominate).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function where(url: string): string {
  if (!url) return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url;
  const root = `file://${process.cwd()}/`;
  return url.startsWith(root) ? url.slice(root.length) : url;
}

const [file, topArg, pattern] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary.ts <file.cpuprofile> [top] [inclusive-regex]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Samples before `fromUs` (PROFILE_LAST_S) are dropped: their ids become -1.
const lastS = Number(process.env.PROFILE_LAST_S ?? 0);
const fromUs = lastS > 0 ? Math.max(profile.startTime, profile.endTime - lastS * 1e6) : profile.startTime;
{
  let at = profile.startTime;
  profile.samples = profile.samples.map((id, i) => ((at += profile.timeDeltas[i] ?? 0) < fromUs ? -1 : id));
}
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (id >= 0) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const totalUs = profile.endTime - fromUs;
const idleUs = [...selfUs].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((s, [, us]) => s + us, 0);

const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(idle)') continue;
  add(byPlace, where(frame.url), us);
  add(byFunction, `${frame.functionName || '(anonymous)'}  ${where(frame.url)}:${frame.lineNumber + 1}`, us);
}

const busyUs = totalUs - idleUs;
const pct = (us: number) => `${((100 * us) / busyUs).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}\n`);
  }
};
process.stdout.write(
  `profile ${(totalUs / 1e6).toFixed(1)} s, idle ${(idleUs / 1e6).toFixed(1)} s, busy ${(busyUs / 1e6).toFixed(1)} s (percentages are of busy time)\n`,
);
print('Self time by place', byPlace);
print('Self time by function', byFunction);

if (pattern) {
  // Inclusive time: a sample counts once for every distinct matching function on its stack.
  const re = new RegExp(pattern);
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (id < 0) return;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const key = `${frame.functionName || '(anonymous)'}  ${where(frame.url)}:${frame.lineNumber + 1}`;
      if (re.test(key) && !seen.has(key)) {
        seen.add(key);
        add(inclusive, key, profile.timeDeltas[i] ?? 0);
      }
    }
  });
  print(`Inclusive time of functions matching /${pattern}/`, inclusive);
}
