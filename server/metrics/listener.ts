import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorBody } from '../http/error-body.ts';

export interface MetricsListener {
  /** `http://HOST:PORT/metrics` */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus' text format on a listener of its own (METRICS_PORT, bound to
 * METRICS_HOST), never on the API's port: the partner-facing address never exposes it.
 */
export async function startMetricsListener(registry: Registry, host: string, port: number, logger: Logger): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(404, 'Only GET /metrics is served here')));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        logger.warn({ err }, 'metrics collection failed');
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(503, 'Metrics could not be collected')));
      },
    );
  });
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
