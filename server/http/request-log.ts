import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** From a sane `X-Request-Id`, or a new UUID; echoed in the response header and every log line. */
      id: string;
    }
  }
}

/**
 * Request ids and one log line per request, with only what helps to trace it: id, method,
 * path, status, duration. Never headers (keys) or bodies (personal data). Does no per-request
 * work for logging when the level is above `info`.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const fields = {
          req: { id: req.id, method: req.method, url: req.originalUrl.split('?')[0] },
          res: { statusCode: res.statusCode },
          responseTime: Number(process.hrtime.bigint() - started) / 1e6,
        };
        if (res.statusCode >= 500) logger.error(fields, 'request failed');
        else logger.info(fields, 'request completed');
      });
    }
    next();
  };
}
