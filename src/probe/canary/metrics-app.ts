/** `--metrics-port`: GET /metrics answers the canary's metrics in the Prometheus text format. */
import { Hono } from 'hono';
import { EXPOSITION_CONTENT_TYPE } from './exposition.js';

export function metricsApp(render: () => string): Hono {
  const app = new Hono();
  app.get('/metrics', (c) => c.body(render(), 200, { 'Content-Type': EXPOSITION_CONTENT_TYPE }));
  app.get('/', (c) => c.text('faultline probe canary: metrics at /metrics\n'));
  app.notFound((c) => c.text('not found: the metrics are at /metrics\n', 404));
  return app;
}
