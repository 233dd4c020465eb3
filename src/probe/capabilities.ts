/**
 * What a server can do, asked before a suite runs instead of assumed: a handful of small requests
 * on a short token-id prompt. Each answer is `yes`, `no` (with what the server did) or `unverified`
 * (the server accepted the field, but nothing it returned could show whether it acted on it:
 * `ignore_eos` only shows when the model emits the end-of-sequence token). A suite then says which
 * missing capability it needs and why, before it starts (suite-needs.ts), instead of ending
 * INCONCLUSIVE after the fact.
 */
import { parseCacheConfig, type KvCapacity } from './workload/capacity.js';
import { generationRequest, scoringRequest } from './requests.js';
import { generationFrom, parseCompletion, scoresFromPromptLogprobs } from './responses.js';
import { ProbeClient, RetryBudget } from './client.js';
import { ServerApi } from './server-api.js';
import type { Endpoint } from './types.js';
import { streamedEvents } from './sse-reader.js';
import { StreamTokenCounter } from './stream-tokens.js';

export type CapabilityName =
  | 'token-id-generation'
  | 'logprobs'
  | 'ignore-eos'
  | 'min-tokens'
  | 'prompt-logprobs'
  | 'parallel-sampling'
  | 'streaming'
  | 'kv-capacity';

export type Support = 'yes' | 'no' | 'unverified';

export interface Capability {
  name: CapabilityName;
  support: Support;
  detail: string;
}

export interface CapabilityReport {
  /** Which API the probe speaks to the server: OpenAI routes, or SGLang's native /generate. */
  api: 'openai' | 'sglang' | 'llama-server';
  checks: Capability[];
  /** From GET /metrics, when the server reports it. */
  capacity?: KvCapacity;
  /** What one streamed request of `tokens` tokens looked like. */
  stream?: { tokens: number; events: number; countedBy?: string };
}

/** Where each API generates from token ids. */
const ROUTE: Record<CapabilityReport['api'], string> = {
  openai: 'POST /v1/completions',
  sglang: 'POST /generate',
  'llama-server': 'POST /completion',
};

/** Tokens each check generates: enough to see several per event, few enough to stay quick. */
const CHECK_TOKENS = 8;

export interface CapabilityOptions {
  /** A short token-id prompt the server's tokenizer produced. */
  prompt: readonly number[];
  /** Top-k log-probabilities the suite will ask for. */
  logprobs: number;
  seed: number;
  signal?: AbortSignal;
}

/**
 * A failed question: refused (HTTP 4xx) is a `no`; a server error, a timeout or a reset says
 * nothing about the capability (`unverified`), and the suite then runs and records its failures.
 */
function failed(
  name: CapabilityName,
  what: string,
  r: { error: string; attempts: { status?: number }[] },
): Capability {
  const status = r.attempts.at(-1)?.status;
  return status !== undefined && status >= 400 && status < 500
    ? { name, support: 'no', detail: `${what} was refused (HTTP ${status}): ${r.error}` }
    : { name, support: 'unverified', detail: `${what} could not be asked: ${r.error}` };
}

export function supportOf(r: CapabilityReport, name: CapabilityName): Capability | undefined {
  return r.checks.find((c) => c.name === name);
}

async function generation(api: ServerApi, o: CapabilityOptions): Promise<Capability[]> {
  const g = await api.generate(
    o.prompt,
    { maxTokens: CHECK_TOKENS, logprobs: o.logprobs, seed: o.seed },
    o.signal,
  );
  if (!g.ok) {
    const what = `a greedy request with a token-id prompt, asking for token ids and ${o.logprobs} logprobs,`;
    // an answer that parsed but lacked what was asked (tokens not as ids, no logprobs): a refusal too
    if (!/^(GET|POST) \//.test(g.error))
      return [
        {
          name: 'token-id-generation',
          support: 'no',
          detail: `${what} got an answer without them: ${g.error}`,
        },
      ];
    return [failed('token-id-generation', what, g)];
  }
  const out: Capability[] = [
    {
      name: 'token-id-generation',
      support: 'yes',
      detail: `${ROUTE[api.api]}: token ids in and out`,
    },
  ];
  const fewest = Math.min(...g.value.steps.map((s) => s.top.length));
  out.push(
    fewest >= o.logprobs
      ? {
          name: 'logprobs',
          support: 'yes',
          detail: `${o.logprobs} alternatives per token asked, at least ${fewest} returned`,
        }
      : {
          name: 'logprobs',
          support: 'no',
          detail: `${o.logprobs} alternatives per token asked, as few as ${fewest} returned`,
        },
  );
  const n = g.value.tokens.length;
  out.push(
    n === CHECK_TOKENS
      ? {
          name: 'ignore-eos',
          support: 'unverified',
          detail: `accepted; ${n} of ${n} tokens came back (it only shows when the model emits EOS; an early stop is judged on the tokens returned)`,
        }
      : {
          name: 'ignore-eos',
          support: 'no',
          detail: `${n} of ${CHECK_TOKENS} tokens with ignore_eos (finish_reason ${g.value.finishReason ?? 'none'}): generations that stop at EOS are judged on the tokens returned`,
        },
  );
  return out;
}

async function minTokens(api: ServerApi, o: CapabilityOptions): Promise<Capability> {
  if (api.api === 'sglang')
    return { name: 'min-tokens', support: 'unverified', detail: 'not asked on /generate (min_new_tokens)' };
  const body = {
    ...generationRequest(api.model, o.prompt, { maxTokens: CHECK_TOKENS, logprobs: 0, seed: o.seed }),
    ignore_eos: false,
    min_tokens: CHECK_TOKENS,
  };
  const r = await api.client.postJson('/v1/completions', body, o.signal);
  if (!r.ok) return failed('min-tokens', 'min_tokens', r);
  try {
    const n = generationFrom(parseCompletion(r.value)).tokens.length;
    return n === CHECK_TOKENS
      ? { name: 'min-tokens', support: 'unverified', detail: `accepted; ${n} of ${n} tokens came back` }
      : {
          name: 'min-tokens',
          support: 'no',
          detail: `min_tokens ${CHECK_TOKENS} asked, ${n} tokens came back`,
        };
  } catch (e) {
    return { name: 'min-tokens', support: 'no', detail: (e as Error).message };
  }
}

async function promptLogprobs(api: ServerApi, o: CapabilityOptions): Promise<Capability> {
  if (api.api === 'sglang')
    return {
      name: 'prompt-logprobs',
      support: 'yes',
      detail: 'POST /generate with logprob_start_len (input_token_logprobs)',
    };
  const r = await api.client.postJson(
    '/v1/completions',
    scoringRequest(api.model, o.prompt, 1, 'prompt_logprobs', o.seed),
    o.signal,
  );
  if (!r.ok) return failed('prompt-logprobs', 'prompt_logprobs', r);
  try {
    scoresFromPromptLogprobs(parseCompletion(r.value), o.prompt, 1);
    return {
      name: 'prompt-logprobs',
      support: 'yes',
      detail: `one entry per prompt token (${o.prompt.length})`,
    };
  } catch (e) {
    return { name: 'prompt-logprobs', support: 'no', detail: (e as Error).message };
  }
}

async function parallelSampling(api: ServerApi, o: CapabilityOptions): Promise<Capability> {
  if (api.api === 'sglang')
    return { name: 'parallel-sampling', support: 'unverified', detail: 'not asked on /generate' };
  const body = {
    ...generationRequest(api.model, o.prompt, { maxTokens: 2, logprobs: 1, seed: o.seed }),
    n: 2,
    temperature: 1,
    top_k: 1,
  };
  const r = await api.client.postJson('/v1/completions', body, o.signal);
  if (!r.ok) return failed('parallel-sampling', 'n = 2', r);
  try {
    const res = parseCompletion(r.value);
    for (const i of [0, 1]) generationFrom(res, i);
    return { name: 'parallel-sampling', support: 'yes', detail: 'n = 2 gave 2 choices' };
  } catch (e) {
    return { name: 'parallel-sampling', support: 'no', detail: `n = 2: ${(e as Error).message}` };
  }
}

async function streaming(
  api: ServerApi,
  o: CapabilityOptions,
): Promise<{ check: Capability; stream?: CapabilityReport['stream'] }> {
  const { client } = api;
  const body = {
    ...generationRequest(api.model, o.prompt, { maxTokens: CHECK_TOKENS, logprobs: 0, seed: o.seed }),
    stream: true,
  };
  const counter = new StreamTokenCounter(async (text) => {
    const t = await api.tokenize(text, o.signal, { addSpecialTokens: false });
    if (!t.ok) throw new Error(`/tokenize: ${t.error}`);
    return t.value.length;
  });
  let events = 0;
  try {
    const res = await fetch(`${client.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(client.authHeader ? { authorization: client.authHeader } : {}),
      },
      body: JSON.stringify(body),
      signal: o.signal ?? AbortSignal.timeout(60_000),
    });
    if (!res.ok || !res.body)
      return {
        check: failed('streaming', 'POST /v1/completions with stream', {
          error: `HTTP ${res.status}`,
          attempts: [{ status: res.status }],
        }),
      };
    for await (const e of streamedEvents(res.body as AsyncIterable<Uint8Array>)) {
      events++;
      const t = await counter.add(e);
      if (t.error) return { check: { name: 'streaming', support: 'no', detail: client.redact(t.error) } };
    }
  } catch (e) {
    return {
      check: {
        name: 'streaming',
        support: 'unverified',
        detail: `could not be asked: ${client.redact((e as Error).message)}`,
      },
    };
  }
  const stream = {
    tokens: counter.tokens,
    events,
    ...(counter.countedBy ? { countedBy: counter.countedBy } : {}),
  };
  const shape =
    events === 1 && counter.tokens > 1
      ? 'the whole completion in one event'
      : `${counter.tokens} tokens in ${events} event(s)`;
  return {
    check: {
      name: 'streaming',
      support: 'yes',
      detail: `${shape}, counted by ${stream.countedBy ?? 'token ids'}`,
    },
    stream,
  };
}

async function capacity(
  api: ServerApi,
  signal?: AbortSignal,
): Promise<{ check: Capability; capacity?: KvCapacity }> {
  try {
    const auth = api.client.authHeader;
    const res = await fetch(`${api.client.baseUrl}/metrics`, {
      headers: auth ? { authorization: auth } : {},
      signal: signal ?? AbortSignal.timeout(10_000),
    });
    const c = res.ok ? parseCacheConfig(await res.text()) : undefined;
    if (c)
      return {
        check: {
          name: 'kv-capacity',
          support: 'yes',
          detail: `vllm:cache_config_info: ${c.numGpuBlocks} blocks of ${c.blockSize}`,
        },
        capacity: c,
      };
    return {
      check: {
        name: 'kv-capacity',
        support: 'no',
        detail: res.ok ? 'GET /metrics has no vllm:cache_config_info' : `GET /metrics: HTTP ${res.status}`,
      },
    };
  } catch (e) {
    return { check: { name: 'kv-capacity', support: 'no', detail: `GET /metrics: ${(e as Error).message}` } };
  }
}

export type CapabilityScope = 'generation' | 'workload' | 'workload-reference';

/**
 * Asks the server at `endpoint` (`resolved`: its model and API, already learned) each question of
 * `scope`, one request each, in order, on a client of its own (one retry, a small budget), so the
 * questions never spend the suite's retries. `generation`: can it generate from token ids with
 * logprobs (what every suite needs); `workload`: also min_tokens, prompt_logprobs, n, streaming and
 * the KV capacity; `workload-reference`: what the reference runs alone (prompt_logprobs, n).
 */
export async function checkCapabilities(
  endpoint: Endpoint,
  resolved: ServerApi,
  o: CapabilityOptions & { scope: CapabilityScope },
): Promise<CapabilityReport> {
  const api = new ServerApi(
    new ProbeClient({
      baseUrl: endpoint.url,
      apiKey: endpoint.apiKey,
      maxRetries: 1,
      budget: new RetryBudget(6),
      backoffBaseMs: 100,
    }),
  );
  api.model = resolved.model;
  api.maxModelLen = resolved.maxModelLen;
  api.api = resolved.api;
  try {
    const checks = await generation(api, o);
    if (o.scope === 'generation') return { api: api.api, checks };
    const generates = checks[0].support !== 'no';
    if (o.scope === 'workload-reference') {
      if (generates) checks.push(await promptLogprobs(api, o), await parallelSampling(api, o));
      return { api: api.api, checks };
    }
    let stream: CapabilityReport['stream'];
    if (generates) {
      checks.push(await minTokens(api, o), await promptLogprobs(api, o), await parallelSampling(api, o));
      const s = await streaming(api, o);
      checks.push(s.check);
      stream = s.stream;
    }
    const kv = await capacity(api, o.signal);
    checks.push(kv.check);
    return {
      api: api.api,
      checks,
      ...(kv.capacity ? { capacity: kv.capacity } : {}),
      ...(stream ? { stream } : {}),
    };
  } finally {
    await api.client.close();
  }
}

/** Text lines for the report: one per capability. */
export function formatCapabilities(who: string, r: CapabilityReport): string[] {
  const mark: Record<Support, string> = { yes: 'yes', no: 'NO', unverified: 'unverified' };
  return [
    `  ${who} capabilities (${r.api === 'openai' ? 'OpenAI routes' : ROUTE[r.api]}):`,
    ...r.checks.map((c) => `    ${c.name}: ${mark[c.support]} — ${c.detail}`),
  ];
}
