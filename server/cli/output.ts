/** How a command answers: one JSON object with --json (scripts), readable lines without. */
export interface Output {
  result(json: object, human: string): void;
}

export function createOutput(json: boolean, write: (text: string) => void = (t) => process.stdout.write(t)): Output {
  return {
    result(value, human) {
      write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
    },
  };
}

export class CliError extends Error {}
