/**
 * The sealing key test servers hold (a fixed, public test key). Several hosts of one test share a
 * PostgreSQL database, and PostgreSQL refuses to start without a key every host holds; spawned
 * processes (`npm start`, the CLI) get it through the environment vitest sets (vitest.config.ts).
 */
export const TEST_SECRETS_KEY = '7465737420736561c1696e67206b6579206e6f7420612073656372657421212e';
