/**
 * Server-sent events as OpenAI and vLLM send them: `data: <json>\n\n` per chunk, then `data: [DONE]`.
 * The stream pulls one chunk at a time from an async iterator; when the client goes away the
 * stream is cancelled and the iterator is closed (its `finally` aborts the engine work). An error
 * after the headers went out is sent as a `data: {"error": …}` event before [DONE], as vLLM does.
 */
import { ApiError, errorBody } from './errors.js';

export function sseResponse(chunks: AsyncIterator<object>): Response {
  const encoder = new TextEncoder();
  const send = (c: ReadableStreamDefaultController<Uint8Array>, data: string) => c.enqueue(encoder.encode(`data: ${data}\n\n`));
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      try {
        const r = await chunks.next();
        if (!r.done) return send(controller, JSON.stringify(r.value));
        send(controller, '[DONE]');
      } catch (e) {
        const status = e instanceof ApiError ? e.status : 500;
        const message = e instanceof ApiError ? e.message : 'internal error while streaming';
        send(controller, JSON.stringify(errorBody(status, message)));
        send(controller, '[DONE]');
      }
      finished = true;
      controller.close();
    },
    async cancel() {
      finished = true;
      await chunks.return?.(undefined);
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } });
}
