import fc from 'fast-check';
import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesHistogram } from '../../server/metrics/series-histogram.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Observations as prom-client's own Histogram and Counter would expose them, and as ours does. */
async function expositions(observations: Array<{ method: string; route: string; status: string; seconds: number }>, openMetrics = false) {
  const theirs = new Registry<RegistryContentType>();
  const histogram = new Histogram({ name: 'http_seconds', help: 'h', labelNames: ['method', 'route', 'status'], buckets: BUCKETS, registers: [theirs] });
  const counter = new Counter({ name: 'http_total', help: 'c', labelNames: ['method', 'route', 'status'], registers: [theirs] });
  const ours = new Registry<RegistryContentType>();
  if (openMetrics) {
    theirs.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    ours.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  }
  const series = new SeriesHistogram(ours, { name: 'http_seconds', help: 'h', labelNames: ['method', 'route', 'status'], buckets: BUCKETS, counter: { name: 'http_total', help: 'c' } });
  for (const { method, route, status, seconds } of observations) {
    histogram.observe({ method, route, status }, seconds);
    counter.inc({ method, route, status });
    series.of(method, route, status).observe(seconds);
  }
  return {
    theirs: await theirs.metrics(),
    ours: await ours.metrics(),
    theirsJson: await theirs.getMetricsAsJSON(),
    oursJson: await ours.getMetricsAsJSON(),
  };
}

describe('SeriesHistogram', () => {
  it('exposes exactly what prom-client’s Histogram and Counter expose for the same observations, as text (Prometheus and OpenMetrics) and as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            method: fc.constantFrom('GET', 'POST'),
            route: fc.constantFrom('/v1/external/incidents/:incidentId', 'unmatched', '/a "quoted" \\ route'),
            status: fc.constantFrom('200', '404', '500'),
            // Bucket bounds themselves included: `le` is inclusive.
            seconds: fc.oneof(fc.constantFrom(...BUCKETS, 0, 11), fc.double({ min: 0, max: 20, noNaN: true })),
          }),
          { maxLength: 60 },
        ),
        fc.boolean(),
        async (observations, openMetrics) => {
          const { theirs, ours, theirsJson, oursJson } = await expositions(observations, openMetrics);
          expect(ours).toBe(theirs);
          expect(oursJson).toEqual(theirsJson);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('an unlabelled series shows zero before its first observation, as prom-client’s does', async () => {
    const theirs = new Registry();
    new Histogram({ name: 'q_seconds', help: 'q', buckets: BUCKETS, registers: [theirs] });
    const ours = new Registry();
    new SeriesHistogram(ours, { name: 'q_seconds', help: 'q', labelNames: [], buckets: BUCKETS }).of();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('after a reset, a series looked up before it counts again from zero', async () => {
    const registry = new Registry();
    const kept = new SeriesHistogram(registry, { name: 'q_seconds', help: 'q', labelNames: [], buckets: BUCKETS }).of();
    kept.observe(0.2);
    kept.observe(0.3);
    registry.resetMetrics();
    kept.observe(0.004);
    const text = await registry.metrics();
    expect(text).toContain('q_seconds_count 1\n');
    expect(text).toContain('q_seconds_bucket{le="0.005"} 1\n');
    expect(text).toContain('q_seconds_sum 0.004\n');
  });
});
