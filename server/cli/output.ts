/** How a command answers: one JSON object with --json (scripts), readable lines without. */
export interface Output {
  result(json: object, human: string): void;
  /** The command answered, but not everything is done (e.g. values left to re-seal): exit with this code. */
  exitWith(code: number): void;
  exitCode(): number;
}

export function createOutput(json: boolean, write: (text: string) => void = (t) => void process.stdout.write(t)): Output {
  let code = 0;
  return {
    result(value, human) {
      write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
    },
    exitWith(next) {
      code = next;
    },
    exitCode: () => code,
  };
}

export class CliError extends Error {}
