/**
 * The OpenAI-compatible server as a pure Request → Response handler (hono): no sockets here, so
 * tests drive it with app.request(); listen.ts binds it to a port. Every error leaves as
 * OpenAI-style JSON with the right status (errors.ts): 400 bad input, 404 unknown route or model,
 * 405 wrong method, 413 body over the cap, 503 while loading or shutting down, 500 for a bug.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ServerContext } from './context.js';
import { ApiError, errorBody, errorResponse } from './errors.js';
import { registerChatCompletions } from './routes/chat-completions.js';
import { registerCompletions } from './routes/completions.js';
import { registerInfo } from './routes/info.js';
import { registerLlamaServerNative } from './routes/llama-server-native.js';
import { registerSglangNative } from './routes/sglang-native.js';
import { registerTokenize } from './routes/tokenize.js';

const KNOWN_PATHS = new Set(['/health', '/v1/models', '/metrics', '/v1/completions', '/v1/chat/completions', '/tokenize', '/detokenize']);

export function createApp(ctx: ServerContext): Hono {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    ctx.http.responses.set(c.res.status, (ctx.http.responses.get(c.res.status) ?? 0) + 1);
  });
  app.use(
    bodyLimit({
      maxSize: ctx.limits.maxBodyBytes,
      onError: (c) => c.json(errorBody(413, `the request body exceeds ${ctx.limits.maxBodyBytes} bytes`), 413),
    }),
  );
  registerInfo(app, ctx);
  registerCompletions(app, ctx);
  registerChatCompletions(app, ctx);
  // llama-server's /tokenize and /detokenize take other fields (registered with its native routes)
  if (ctx.apiShape !== 'llama-server') registerTokenize(app, ctx);
  if (ctx.apiShape === 'sglang') registerSglangNative(app, ctx);
  if (ctx.apiShape === 'llama-server') registerLlamaServerNative(app, ctx);
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    if (KNOWN_PATHS.has(path)) return c.json(errorBody(405, `method ${c.req.method} is not allowed on ${path}`), 405);
    return c.json(errorBody(404, `no route for ${c.req.method} ${path}`), 404);
  });
  app.onError((e) => {
    if (e instanceof ApiError) return errorResponse(e);
    process.stderr.write(`server: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return Response.json(errorBody(500, 'internal server error'), { status: 500 });
  });
  return app;
}
