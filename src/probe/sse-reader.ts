/**
 * The JSON payloads of a streamed response, as they arrive. Servers frame them differently: SSE
 * `data:` events separated by a blank line (LF or CRLF), `[DONE]` at the end (OpenAI routes) or
 * not (llama-server's /completion, TGI's /generate_stream); a server that ignores `stream` answers
 * with one plain JSON body, which is then one event holding the whole completion.
 */

export class StreamFormatError extends Error {
  override name = 'StreamFormatError';
}

function payloadOf(block: string): string | undefined {
  const data = block
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).replace(/^ /, ''));
  if (data.length === 0) return undefined; // a comment, an `event:` line alone, a keep-alive
  return data.join('\n');
}

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new StreamFormatError(`${where} is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
}

/** Yields each event's JSON; `[DONE]` ends the stream. */
export async function* streamedEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = '';
  let sawEvent = false;
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    // a plain JSON body has no `data:` framing: wait for all of it
    if (!sawEvent && !/^\s*(data:|:|event:|id:|retry:)/.test(buffered) && /^\s*[[{]/.test(buffered)) continue;
    const blocks = buffered.split(/\r?\n\r?\n/);
    buffered = blocks.pop() ?? '';
    for (const block of blocks) {
      const data = payloadOf(block);
      if (data === undefined) continue;
      sawEvent = true;
      if (data.trim() === '[DONE]') return;
      yield parse(data, 'a streamed event');
    }
  }
  buffered += decoder.decode();
  if (!buffered.trim()) return;
  if (!sawEvent && /^\s*[[{]/.test(buffered)) {
    yield parse(buffered, 'the response body');
    return;
  }
  const data = payloadOf(buffered);
  if (data !== undefined && data.trim() !== '[DONE]') yield parse(data, 'the last streamed event');
}
