import { runCli } from './program.ts';

/** `npx tsaro ...` (bin/tsaro.js): one command line, its answer on stdout, its exit code. */
process.exitCode = await runCli(process.argv);
