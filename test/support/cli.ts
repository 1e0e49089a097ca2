import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runCli } from '../../server/cli/program.ts';

const run = promisify(execFile);
const BIN = new URL('../../bin/tsaro.js', import.meta.url).pathname;

export interface CliAnswer {
  /** stdout parsed as JSON (undefined without --json: then it holds lines for people). */
  json: any;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI as a test calls it. `inProcess` runs the very `runCli` that `bin/tsaro.js`
 * runs, with the same settings and its own stdout: a second a call cheaper than a Node process
 * with its TypeScript loader (the suite makes about eighty calls). `spawned` runs `bin/tsaro.js`
 * itself, for what only the process shows (one line on its stdout, its exit code); each file keeps
 * some of those.
 */
export function cliFor(env: Record<string, string>) {
  const settings = { ...process.env, ...env };
  return {
    async inProcess(...args: string[]): Promise<CliAnswer> {
      let stdout = '';
      let stderr = '';
      const code = await runCli([process.execPath, BIN, ...args], {
        env: settings,
        stdout: (text) => void (stdout += text),
        stderr: (text) => void (stderr += text),
      });
      return { json: parsed(stdout), code, stdout, stderr };
    },
    async spawned(...args: string[]): Promise<CliAnswer> {
      try {
        const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: settings });
        return { json: parsed(stdout), code: 0, stdout, stderr };
      } catch (err) {
        const failed = err as { stdout: string; stderr: string; code: number };
        return { json: parsed(failed.stdout), code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
  };
}

function parsed(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}
