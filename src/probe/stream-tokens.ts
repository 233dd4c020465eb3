/**
 * How many tokens a streamed event carries. An event is not a token: a stream interval above 1,
 * accepted speculative drafts, a buffering proxy or a server that ignores `stream` put several
 * tokens, or the whole completion, in one event. Each engine says it differently, so the count is
 * read from what the event holds, most exact first:
 *
 *   token ids        `choices[].token_ids` (vLLM's return_token_ids, trtllm-serve), `tokens`
 *                    (llama-server's /completion), `token.id` (TGI's /generate_stream: one per event)
 *   running total    `meta_info.completion_tokens` (SGLang's native /generate)
 *   logprob entries  `choices[].logprobs.tokens` (completions), `.content` (chat),
 *                    `completion_probabilities` (llama-server with n_probs)
 *   text             nothing else: the caller counts it with the server's tokenizer
 *
 * The fixtures under test/fixtures/probe/shapes/ hold each engine's events as its own sources
 * show them; stream-tokens.test.ts reads every one.
 */

export type CountedBy = 'token-ids' | 'running-total' | 'logprobs' | 'text';

export interface EventTokens {
  /** Tokens this event added (absent when only `total` or `text` says). */
  added?: number;
  /** The completion's running token count, when the event states it. */
  total?: number;
  /** Text this event added: what a text-only event can be counted by. */
  text: string;
  countedBy: CountedBy;
  /** The event ends the completion (a finish reason, `stop: true`, TGI's details). */
  finished: boolean;
  /** The event is an error the server sent after the headers. */
  error?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function openAiChoice(c: Obj): EventTokens {
  const delta = isObj(c.delta) ? c.delta : undefined;
  const text = str(c.text) || str(delta?.content);
  // "" is how TGI's completion chunks say "not finished yet"
  const finished = typeof c.finish_reason === 'string' && c.finish_reason !== '';
  const ids = arr(c.token_ids);
  if (ids) return { added: ids.length, text, countedBy: 'token-ids', finished };
  const lp = isObj(c.logprobs) ? c.logprobs : undefined;
  const entries = arr(lp?.tokens) ?? arr(lp?.content);
  if (entries) return { added: entries.length, text, countedBy: 'logprobs', finished };
  return { text, countedBy: 'text', finished };
}

export function tokensOfEvent(event: unknown): EventTokens {
  if (!isObj(event))
    return { text: '', countedBy: 'text', finished: false, error: 'an event that is not a JSON object' };
  if (event.error !== undefined && event.error !== null) {
    const e = event.error;
    return {
      text: '',
      countedBy: 'text',
      finished: true,
      error: isObj(e) ? str(e.message) || JSON.stringify(e) : String(e),
    };
  }
  const choices = arr(event.choices);
  if (choices) {
    // OpenAI-compatible routes: the usage chunk has no choices and adds nothing
    const first = choices.find(isObj);
    return first ? openAiChoice(first) : { added: 0, text: '', countedBy: 'token-ids', finished: false };
  }
  if (isObj(event.token)) {
    // TGI /generate_stream: one token per event; `details` on the last
    return {
      added: 1,
      text: str(event.token.text),
      countedBy: 'token-ids',
      finished: event.details !== null && event.details !== undefined,
    };
  }
  if (isObj(event.meta_info)) {
    const m = event.meta_info;
    const total = typeof m.completion_tokens === 'number' ? m.completion_tokens : undefined;
    const finished = m.finish_reason !== null && m.finish_reason !== undefined;
    return total !== undefined
      ? { total, text: str(event.text), countedBy: 'running-total', finished }
      : { text: str(event.text), countedBy: 'text', finished };
  }
  if ('content' in event || 'stop' in event) {
    // llama-server /completion
    const finished = event.stop === true;
    const text = str(event.content);
    const ids = arr(event.tokens);
    if (ids && (ids.length > 0 || !text))
      return { added: ids.length, text, countedBy: 'token-ids', finished };
    const probs = arr(event.completion_probabilities);
    if (probs) return { added: probs.length, text, countedBy: 'logprobs', finished };
    return { text, countedBy: 'text', finished };
  }
  return {
    text: '',
    countedBy: 'text',
    finished: false,
    error: `an event of no known shape (keys ${Object.keys(event).slice(0, 6).join(', ')})`,
  };
}

/**
 * The running count over a stream. Text-only events are counted by tokenizing all the text so
 * far (token boundaries can move as text arrives; the count of the whole text is what is asked).
 */
export class StreamTokenCounter {
  tokens = 0;
  finished = false;
  /** How the count was read (the least exact way any event needed). */
  countedBy?: CountedBy;
  private text = '';

  constructor(private readonly countText?: (text: string) => Promise<number>) {}

  async add(event: unknown): Promise<EventTokens> {
    const e = tokensOfEvent(event);
    this.text += e.text;
    if (e.finished) this.finished = true;
    if (e.error) return e;
    if (e.total !== undefined) this.tokens = Math.max(this.tokens, e.total);
    else if (e.added !== undefined) this.tokens += e.added;
    else if (e.text) {
      if (!this.countText)
        return {
          ...e,
          error:
            'the event carries text only (no token ids, no logprobs) and no tokenizer was given to count it',
        };
      this.tokens = Math.max(this.tokens, await this.countText(this.text));
    }
    if (e.countedBy === 'text' && e.text) this.countedBy = 'text';
    else this.countedBy ??= e.countedBy;
    return e;
  }
}
