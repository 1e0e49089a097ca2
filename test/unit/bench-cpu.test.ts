import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startCpuAccount, ticksOf } from '../../bench/lib/cpu.ts';

describe("the benchmark's CPU per request (bench/lib/cpu.ts)", () => {
  it('reads user and system ticks after the command, whatever the command holds', () => {
    const line = '4242 (node ) (x) R 1 4242 4242 0 -1 4194304 100 0 0 0 731 269 0 0 20 0 7 0 1000 0 0';
    expect(ticksOf(line)).toBe(1000);
  });

  it("counts a server's CPU per request: a child that burns 400 ms of CPU over 4 requests cost about 100 ms each", async () => {
    const child = spawn(process.execPath, [
      '-e',
      // Ready; told to go, it burns 400 ms of its own CPU (not of the clock: a busy machine only makes it slower), says so and idles.
      "process.stdout.write('ready\\n'); process.stdin.once('data', () => { const s = process.cpuUsage(); while ((process.cpuUsage(s).user + process.cpuUsage(s).system) < 400_000) {} process.stdout.write('done\\n'); });",
    ]);
    try {
      const lines: string[] = [];
      const seen = (word: string) =>
        new Promise<void>((resolve) => {
          const look = () => lines.join('').includes(word) && resolve();
          child.stdout.on('data', (chunk: Buffer) => (lines.push(chunk.toString()), look()));
          look();
        });
      await seen('ready');
      const account = startCpuAccount(child.pid!);
      child.stdin.write('go\n');
      await seen('done');
      const cpu = account.finish(4)!;
      expect(cpu).toBeDefined();
      // /proc counts in 10 ms ticks; the child's start-up before the account began is not counted.
      expect(cpu.server).toBeGreaterThan(90_000);
      expect(cpu.server).toBeLessThan(115_000);
      expect(cpu.load).toBeGreaterThanOrEqual(0);
      expect(cpu.machineBusy).toBeGreaterThan(0);
      expect(cpu.machineBusy).toBeLessThanOrEqual(1);
    } finally {
      child.kill();
      await once(child, 'exit');
    }
  });
});
