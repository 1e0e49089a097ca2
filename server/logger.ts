import { pino, type Logger } from 'pino';

/** Structured logs. Keys and secrets are never logged; these paths are censored in case one slips in. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'secret', '*.secret', 'token', '*.token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
