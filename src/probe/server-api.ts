/**
 * The calls a probe makes to one server, parsed into oracle data. Each returns a CallResult: a
 * response that arrives but does not parse is a failure with the reason, like an HTTP error.
 */
import type { Generation, ScoredToken } from '../oracle/types.js';
import type { CallResult, ProbeClient } from './client.js';
import { lengthProblem } from './early-stop.js';
import {
  detokenizeRequest,
  generationRequest,
  scoringRequest,
  tokenizeRequest,
  type GenerationSettings,
  type ScoringMode,
} from './requests.js';
import {
  generationFrom,
  parseCompletion,
  parseDetokenize,
  parseModels,
  parseTokenize,
  ResponseError,
  scoresFromEcho,
  scoresFromPromptLogprobs,
} from './responses.js';
import {
  generationFromLlamaServer,
  isLlamaServerProps,
  llamaServerCompletionRequest,
} from './llama-server-native.js';
import {
  generationFromSglang,
  isSglangModelInfo,
  scoresFromSglang,
  sglangGenerateRequest,
  sglangScoreRequest,
} from './sglang-native.js';

function mapResult<T>(r: CallResult<unknown>, parse: (json: unknown) => T): CallResult<T> {
  if (!r.ok) return r;
  try {
    return { ok: true, value: parse(r.value), attempts: r.attempts };
  } catch (e) {
    if (e instanceof ResponseError) return { ok: false, error: e.message, attempts: r.attempts };
    throw e;
  }
}

export class ServerApi {
  model?: string;
  maxModelLen?: number;
  scoringMode: ScoringMode = 'prompt_logprobs';
  /**
   * `sglang` when GET /model_info answers as SGLang does: generation and scoring then go through
   * /generate. `llama-server` when GET /props answers as llama.cpp's server does: generation goes
   * through /completion (token ids, n_probs); it has no prompt scoring, so it can be a target, not a
   * reference.
   */
  api: 'openai' | 'sglang' | 'llama-server' = 'openai';

  constructor(readonly client: ProbeClient) {}

  get url(): string {
    return this.client.displayUrl;
  }

  /** Learns the served model id (sent explicitly in every request) and max_model_len. */
  async resolveModel(signal?: AbortSignal): Promise<CallResult<{ id: string; maxModelLen?: number }>> {
    const r = mapResult(await this.client.getJson('/v1/models', signal), parseModels);
    if (r.ok) {
      this.model = r.value.id;
      this.maxModelLen = r.value.maxModelLen;
      const info = await this.client.getJson('/model_info', signal);
      if (info.ok && isSglangModelInfo(info.value)) this.api = 'sglang';
      else {
        const props = await this.client.getJson('/props', signal);
        if (props.ok && isLlamaServerProps(props.value)) this.api = 'llama-server';
      }
    }
    return r;
  }

  async tokenize(
    text: string,
    signal?: AbortSignal,
    o: { addSpecialTokens?: boolean } = {},
  ): Promise<CallResult<number[]>> {
    const r = mapResult(
      await this.client.postJson(
        '/tokenize',
        tokenizeRequest(this.model, text, o.addSpecialTokens ?? true, this.api),
        signal,
      ),
      (json) => {
        const t = parseTokenize(json);
        // a server that ignored the text's field answers with no tokens: a failure, never an empty prompt
        if (text !== '' && t.tokens.length === 0)
          throw new ResponseError(`/tokenize returned no tokens for a text of ${text.length} characters`);
        return t;
      },
    );
    if (r.ok && r.value.maxModelLen !== undefined) this.maxModelLen ??= r.value.maxModelLen;
    return r.ok ? { ...r, value: r.value.tokens } : r;
  }

  async detokenize(tokens: readonly number[], signal?: AbortSignal): Promise<CallResult<string>> {
    return mapResult(
      await this.client.postJson('/detokenize', detokenizeRequest(this.model, tokens), signal),
      parseDetokenize,
    );
  }

  async generate(
    prompt: readonly number[],
    settings: GenerationSettings,
    signal?: AbortSignal,
  ): Promise<CallResult<Generation>> {
    if (this.api === 'sglang') return this.generateSglang(prompt, settings, signal);
    if (this.api === 'llama-server')
      return mapResult(
        await this.client.postJson('/completion', llamaServerCompletionRequest(prompt, settings), signal),
        (json) => {
          const g = generationFromLlamaServer(json);
          const problem = lengthProblem(g, settings.maxTokens);
          if (problem) throw new ResponseError(problem);
          return g;
        },
      );
    const r = await this.client.postJson(
      '/v1/completions',
      generationRequest(this.model, prompt, settings),
      signal,
    );
    return mapResult(r, (json) => {
      const g = generationFrom(parseCompletion(json));
      const problem = lengthProblem(g, settings.maxTokens);
      if (problem) throw new ResponseError(problem);
      return g;
    });
  }

  /**
   * The reference's scores of `continuation` after `prompt`. Tries prompt_logprobs first; a server
   * that answers without them (or rejects the field with 400) is asked again with echo, once, and
   * remembered.
   */
  async score(
    prompt: readonly number[],
    continuation: readonly number[],
    logprobs: number,
    seed: number,
    signal?: AbortSignal,
  ): Promise<CallResult<ScoredToken[]>> {
    const sequence = [...prompt, ...continuation];
    if (this.api === 'llama-server')
      return {
        ok: false,
        error: `${this.url} is a llama-server, which has no prompt scoring: it can be probed as the target, not used as the reference`,
        attempts: [],
      };
    if (this.api === 'sglang')
      return mapResult(
        await this.client.postJson(
          '/generate',
          sglangScoreRequest(sequence, prompt.length, logprobs, seed),
          signal,
        ),
        (json) => scoresFromSglang(json, sequence, prompt.length),
      );
    const parse = (mode: ScoringMode) => (json: unknown) => {
      const res = parseCompletion(json);
      return mode === 'prompt_logprobs'
        ? scoresFromPromptLogprobs(res, sequence, prompt.length)
        : scoresFromEcho(res, sequence, prompt.length);
    };
    const first = this.scoringMode;
    const r = mapResult(
      await this.client.postJson(
        '/v1/completions',
        scoringRequest(this.model, sequence, logprobs, first, seed),
        signal,
      ),
      parse(first),
    );
    const unsupported =
      !r.ok &&
      first === 'prompt_logprobs' &&
      (/no prompt_logprobs/.test(r.error) || r.attempts.at(-1)?.status === 400);
    if (!unsupported) return r;
    const again = mapResult(
      await this.client.postJson(
        '/v1/completions',
        scoringRequest(this.model, sequence, logprobs, 'echo', seed),
        signal,
      ),
      parse('echo'),
    );
    if (again.ok) this.scoringMode = 'echo';
    return again.ok
      ? again
      : {
          ...again,
          error: `${r.error}; echo fallback: ${again.error}`,
          attempts: [...r.attempts, ...again.attempts],
        };
  }

  private async generateSglang(
    prompt: readonly number[],
    settings: GenerationSettings,
    signal?: AbortSignal,
  ): Promise<CallResult<Generation>> {
    const r = await this.client.postJson('/generate', sglangGenerateRequest(prompt, settings), signal);
    return mapResult(r, (json) => {
      const g = generationFromSglang(json);
      const problem = lengthProblem(g, settings.maxTokens);
      if (problem) throw new ResponseError(problem);
      return g;
    });
  }
}
