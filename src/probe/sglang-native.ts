/**
 * SGLang's native API for the probe (sgl-project/sglang: io_struct.py GenerateReqInput,
 * tokenizer_manager.py meta_info @ 65d3b47f). SGLang's OpenAI routes lack the two vLLM extensions
 * the probe relies on — prompt_logprobs and return_tokens_as_token_ids (its top-k lists are keyed by
 * token text) — while POST /generate takes token ids and returns every log-probability as
 * [logprob, token_id, text], for the prompt from logprob_start_len on and for the output. So on an
 * SGLang server the probe generates and scores through /generate; tokenization stays on /tokenize,
 * which SGLang serves with vLLM's field names.
 */
import { z } from 'zod';
import type { Generation, ScoredToken, TopLogprob } from '../oracle/types.js';
import { greedySamplingFields, type GenerationSettings } from './requests.js';
import { ResponseError } from './responses.js';

/** Greedy, fixed-length (ignore_eos) sampling parameters with SGLang's names. */
function samplingParams(maxNewTokens: number, seed: number): Record<string, unknown> {
  const g = greedySamplingFields(seed);
  return {
    temperature: g.temperature,
    top_p: g.top_p,
    top_k: g.top_k,
    min_p: g.min_p,
    presence_penalty: g.presence_penalty,
    frequency_penalty: g.frequency_penalty,
    repetition_penalty: g.repetition_penalty,
    n: 1,
    stop: [],
    stop_token_ids: [],
    max_new_tokens: maxNewTokens,
    min_new_tokens: 0,
    ignore_eos: true,
    sampling_seed: seed,
  };
}

export function sglangGenerateRequest(prompt: readonly number[], s: GenerationSettings): Record<string, unknown> {
  return {
    input_ids: [...prompt],
    sampling_params: samplingParams(s.maxTokens, s.seed),
    return_logprob: true,
    logprob_start_len: -1,
    top_logprobs_num: s.logprobs,
    return_text_in_logprobs: false,
    stream: false,
  };
}

/** Scores `sequence` from position `from` on without generating (max_new_tokens 0). */
export function sglangScoreRequest(sequence: readonly number[], from: number, logprobs: number, seed: number): Record<string, unknown> {
  return {
    input_ids: [...sequence],
    sampling_params: samplingParams(0, seed),
    return_logprob: true,
    logprob_start_len: from,
    top_logprobs_num: logprobs,
    return_text_in_logprobs: false,
    stream: false,
  };
}

const entry = z.tuple([z.number().nullable(), z.int(), z.string().nullable()]).rest(z.unknown());
const topList = z.array(entry).nullable();
const generateResponse = z.looseObject({
  output_ids: z.array(z.int()).optional(),
  text: z.string().optional(),
  meta_info: z.looseObject({
    finish_reason: z.looseObject({ type: z.string() }).nullable().optional(),
    input_token_logprobs: z.array(entry).optional(),
    output_token_logprobs: z.array(entry).optional(),
    input_top_logprobs: z.array(topList).optional(),
    output_top_logprobs: z.array(topList).optional(),
  }),
});
type GenerateResponse = z.infer<typeof generateResponse>;

function parse(json: unknown): GenerateResponse {
  const r = generateResponse.safeParse(json);
  if (!r.success) throw new ResponseError(`not an SGLang /generate response: ${r.error.issues[0]?.path.join('.') || 'body'}: ${r.error.issues[0]?.message ?? ''}`);
  return r.data;
}

function sortedTop(list: z.infer<typeof topList> | undefined): TopLogprob[] {
  return (list ?? [])
    .filter((e) => e[0] !== null)
    .map((e) => ({ token: e[1], logprob: e[0] as number }))
    .sort((a, b) => b.logprob - a.logprob || a.token - b.token);
}

export function generationFromSglang(json: unknown): Generation {
  const res = parse(json);
  const m = res.meta_info;
  const lp = m.output_token_logprobs;
  const top = m.output_top_logprobs;
  if (!lp) throw new ResponseError('the /generate response has no output_token_logprobs: the server ignored return_logprob');
  if (!top) throw new ResponseError('the /generate response has no output_top_logprobs: the server ignored top_logprobs_num');
  if (top.length !== lp.length) throw new ResponseError(`output_token_logprobs has ${lp.length} entries, output_top_logprobs ${top.length}`);
  const steps = lp.map((e, i) => {
    if (e[0] === null) throw new ResponseError(`generated token ${i} has a null logprob`);
    return { token: e[1], logprob: e[0], top: sortedTop(top[i]) };
  });
  const ids = res.output_ids;
  if (ids && (ids.length !== steps.length || ids.some((id, i) => id !== steps[i].token)))
    throw new ResponseError('output_ids and output_token_logprobs disagree');
  return { tokens: steps.map((s) => s.token), steps, finishReason: m.finish_reason?.type, ...(res.text !== undefined ? { text: res.text } : {}) };
}

export function scoresFromSglang(json: unknown, sequence: readonly number[], from: number): ScoredToken[] {
  const m = parse(json).meta_info;
  const lp = m.input_token_logprobs;
  const top = m.input_top_logprobs;
  if (!lp || !top) throw new ResponseError('the /generate response has no input_token_logprobs / input_top_logprobs');
  const expected = sequence.length - from;
  if (lp.length !== expected || top.length !== expected)
    throw new ResponseError(`input logprobs have ${lp.length} entries from position ${from} of a ${sequence.length}-token sequence (expected ${expected})`);
  return lp.map((e, i) => {
    const token = sequence[from + i];
    if (e[1] !== token) throw new ResponseError(`input_token_logprobs[${i}] is for token ${e[1]}, the sequence has ${token}`);
    if (e[0] === null) throw new ResponseError(`input_token_logprobs[${i}] is null (position ${from + i} has no logprob)`);
    const list = sortedTop(top[i]);
    const best = list[0];
    if (!best) throw new ResponseError(`input_top_logprobs[${i}] is empty`);
    const logprob = e[0];
    const listed = list.some((t) => t.token === token);
    const rank = 1 + list.filter((t) => t.logprob > logprob).length;
    return listed || rank <= list.length
      ? { token, logprob, rank, topLogprob: best.logprob, topToken: best.token }
      : { token, logprob, rank: list.length + 1, rankIsLowerBound: true, topLogprob: best.logprob, topToken: best.token };
  });
}

/** GET /model_info answers only on SGLang (`model_path`, `is_generation`). */
export function isSglangModelInfo(json: unknown): boolean {
  return z.looseObject({ model_path: z.string(), is_generation: z.boolean() }).safeParse(json).success;
}
