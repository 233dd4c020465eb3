/**
 * GET /health (200 when ready; 503 while loading or shutting down — not under /v1, as in vLLM),
 * GET /v1/models (the served model with max_model_len), GET /metrics (Prometheus text),
 * GET /version ({"version": …} as vLLM answers it; here faultline's version).
 */
import type { Hono } from 'hono';
import type { ServerContext } from '../context.js';
import { metricsWithQuirks } from '../api-shape.js';
import { errorBody } from '../errors.js';
import { renderMetrics } from '../metrics.js';
import { VERSION } from '../../core/version.js';

export function registerInfo(app: Hono, ctx: ServerContext): void {
  app.get('/health', (c) => (ctx.state === 'ready' ? c.body(null, 200) : c.json(errorBody(503, `the server is ${ctx.state === 'loading' ? 'loading the model' : 'shutting down'}`), 503)));
  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: [
        {
          id: ctx.modelId,
          object: 'model',
          created: ctx.startedAt,
          owned_by: 'faultline',
          root: ctx.modelId,
          parent: null,
          max_model_len: ctx.maxModelLen,
          permission: [],
        },
      ],
    }),
  );
  app.get('/version', (c) => c.json({ version: VERSION }));
  app.get('/metrics', (c) => c.body(metricsWithQuirks(ctx.quirks, renderMetrics(ctx)), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
}
