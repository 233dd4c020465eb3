/**
 * The client side of the server benches: a streamed completion's SSE events, read as they arrive,
 * each turned into the number of tokens it carries (the length of its logprobs.tokens; requests ask
 * for logprobs 0 so every token is listed). Breaking out of the loop cancels the body.
 */
export async function* streamedTokenCounts(res: Response): AsyncGenerator<number> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body!) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (!event.startsWith('data: {')) continue;
      yield (JSON.parse(event.slice(6)) as { choices: { logprobs: { tokens: string[] } | null }[] }).choices[0]?.logprobs?.tokens.length ?? 0;
    }
  }
}
