/**
 * An in-process OpenAI-compatible server (vLLM field names and shapes) for probe tests, on
 * 127.0.0.1 port 0. Behind it: a LanguageModel plus optional knobs that make it a candidate —
 *
 *   noise       benign: Gaussian noise on every logit, different on every call, like a server
 *               whose reduction order depends on the batch;
 *   corruption  the canonical symptom: once the sequence is longer than `afterPosition`, some
 *               steps get a wrong token's logit boosted so the server picks it (its own logprobs
 *               stay self-consistent, as a buggy kernel's would);
 *   faults      per call: HTTP status, truncated JSON, slow answers, connection resets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRng } from '../../core/rng.js';
import { decodeBytes, encodeBytes, type LanguageModel } from './ngram-lm.js';

export type Fault =
  | { kind: 'status'; status: number; body?: string; retryAfter?: string }
  | { kind: 'truncate' }
  | { kind: 'slow'; ms: number }
  | { kind: 'reset' };

export interface FakeServerOptions {
  lm: LanguageModel;
  modelId?: string;
  maxModelLen?: number;
  /** Benign noise; `perCall` (default true) draws new noise on every call, like a batch-dependent reduction order. */
  noise?: { sigma: number; seed: number; perCall?: boolean };
  corruption?: { afterPosition: number; rate: number; boost?: number; seed: number };
  /** Consulted on every request: `index` counts calls to that path from 0. */
  faults?: (path: string, index: number) => Fault | undefined;
  /** When false the server ignores prompt_logprobs (older servers), so scoring must use echo. */
  promptLogprobs?: boolean;
  /** Expected Authorization bearer token; others get 401. */
  apiKey?: string;
}

export interface FakeServer {
  url: string;
  /** Requests received per path. */
  calls: Map<string, number>;
  /** Bodies of completion requests, for tests that check what the client sent. */
  completionBodies: Record<string, unknown>[];
  close(): Promise<void>;
}

function hash(values: readonly number[]): number {
  let h = 2166136261;
  for (const v of values) {
    h ^= v;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

const key = (id: number) => `token_id:${id}`;

export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const modelId = options.modelId ?? 'fake-swa';
  const maxModelLen = options.maxModelLen ?? 4096;
  const calls = new Map<string, number>();
  const completionBodies: Record<string, unknown>[] = [];
  let callCounter = 0;

  /** The server's next-token log-probabilities at one step of one call. */
  function distribution(context: readonly number[], call: number): Float64Array {
    const lp = options.lm.logprobs(context);
    const position = context.length;
    let changed = false;
    if (options.noise) {
      const rng = createRng(
        hash([
          options.noise.seed,
          options.noise.perCall === false ? 0 : call,
          position,
          ...context.slice(-8),
        ]),
      );
      for (let i = 0; i < lp.length; i++) lp[i] += options.noise.sigma * rng.normal();
      changed = true;
    }
    const c = options.corruption;
    if (c && position > c.afterPosition) {
      const rng = createRng(hash([c.seed, position, ...context.slice(-8)]));
      if (rng.next() < c.rate) {
        lp[rng.int(256)] += c.boost ?? 12;
        changed = true;
      }
    }
    if (changed) {
      let m = -Infinity;
      for (const x of lp) m = Math.max(m, x);
      let s = 0;
      for (const x of lp) s += Math.exp(x - m);
      const lse = m + Math.log(s);
      for (let i = 0; i < lp.length; i++) lp[i] -= lse;
    }
    return lp;
  }

  function topK(lp: Float64Array, k: number): number[] {
    return [...lp.keys()].sort((a, b) => lp[b] - lp[a] || a - b).slice(0, k);
  }

  function rankOf(lp: Float64Array, id: number): number {
    let r = 1;
    for (let i = 0; i < lp.length; i++) if (lp[i] > lp[id] || (lp[i] === lp[id] && i < id)) r++;
    return r;
  }

  function completion(body: Record<string, unknown>): { status: number; json: unknown } {
    const call = callCounter++;
    const prompt = typeof body.prompt === 'string' ? encodeBytes(body.prompt) : (body.prompt as number[]);
    if (!Array.isArray(prompt) || prompt.length === 0)
      return {
        status: 400,
        json: { error: { message: 'prompt must be text or a non-empty token id list' } },
      };
    const maxTokens = Number(body.max_tokens ?? 16);
    if (prompt.length + maxTokens > maxModelLen)
      return {
        status: 400,
        json: { error: { message: `prompt + max_tokens exceeds max_model_len ${maxModelLen}` } },
      };
    const k = body.logprobs == null ? undefined : Number(body.logprobs);
    const pk =
      options.promptLogprobs === false || body.prompt_logprobs == null
        ? undefined
        : Number(body.prompt_logprobs);
    const echo = body.echo === true;
    const context = [...prompt];
    const tokens: number[] = [];
    const tokenLogprobs: (number | null)[] = [];
    const tops: (Record<string, number> | null)[] = [];
    const promptEntries: (Record<string, { logprob: number; rank: number; decoded_token: string }> | null)[] =
      [];
    if (pk !== undefined || (echo && k !== undefined)) {
      for (let i = 0; i < prompt.length; i++) {
        if (i === 0) {
          promptEntries.push(null);
          continue;
        }
        const lp = distribution(prompt.slice(0, i), call);
        const ids = new Set([...topK(lp, pk ?? k ?? 1), prompt[i]]);
        promptEntries.push(
          Object.fromEntries(
            [...ids].map((id) => [
              String(id),
              { logprob: lp[id], rank: rankOf(lp, id), decoded_token: decodeBytes([id]) },
            ]),
          ),
        );
      }
    }
    for (let i = 0; i < maxTokens; i++) {
      const lp = distribution(context, call);
      const best = topK(lp, Math.max(1, k ?? 1));
      const chosen = best[0];
      tokens.push(chosen);
      tokenLogprobs.push(lp[chosen]);
      tops.push(Object.fromEntries(best.map((id) => [key(id), lp[id]])));
      context.push(chosen);
    }
    let logprobs: unknown = null;
    if (k !== undefined) {
      const echoed = echo
        ? {
            tokens: prompt.map(key),
            token_logprobs: promptEntries.map((e, i) => (e ? e[String(prompt[i])].logprob : null)),
            top_logprobs: promptEntries.map((e) =>
              e ? Object.fromEntries(Object.entries(e).map(([id, v]) => [key(Number(id)), v.logprob])) : null,
            ),
          }
        : { tokens: [], token_logprobs: [], top_logprobs: [] };
      logprobs = {
        text_offset: [],
        tokens: [...echoed.tokens, ...tokens.map(key)],
        token_logprobs: [...echoed.token_logprobs, ...tokenLogprobs],
        top_logprobs: [...echoed.top_logprobs, ...tops],
      };
    }
    const choice: Record<string, unknown> = {
      index: 0,
      text: (echo ? decodeBytes(prompt) : '') + decodeBytes(tokens),
      logprobs,
      finish_reason: 'length',
      stop_reason: null,
    };
    if (pk !== undefined) choice.prompt_logprobs = promptEntries;
    return {
      status: 200,
      json: {
        id: `cmpl-${call}`,
        object: 'text_completion',
        created: 0,
        model: modelId,
        choices: [choice],
        usage: {
          prompt_tokens: prompt.length,
          completion_tokens: maxTokens,
          total_tokens: prompt.length + maxTokens,
        },
      },
    };
  }

  function route(
    method: string,
    path: string,
    body: Record<string, unknown>,
  ): { status: number; json: unknown } {
    if (method === 'GET' && path === '/health') return { status: 200, json: {} };
    if (method === 'GET' && path === '/v1/models')
      return {
        status: 200,
        json: { object: 'list', data: [{ id: modelId, object: 'model', max_model_len: maxModelLen }] },
      };
    if (method === 'POST' && path === '/tokenize') {
      const tokens = encodeBytes(String(body.prompt ?? ''), body.add_special_tokens !== false);
      return { status: 200, json: { count: tokens.length, max_model_len: maxModelLen, tokens } };
    }
    if (method === 'POST' && path === '/detokenize')
      return { status: 200, json: { prompt: decodeBytes((body.tokens as number[]) ?? []) } };
    if (method === 'POST' && path === '/v1/completions') {
      completionBodies.push(body);
      return completion(body);
    }
    return { status: 404, json: { error: { message: `no route ${method} ${path}` } } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const index = calls.get(path) ?? 0;
    calls.set(path, index + 1);
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const fault = options.faults?.(path, index);
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms));
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res
        .writeHead(fault.status, headers)
        .end(fault.body ?? JSON.stringify({ error: { message: `injected ${fault.status}` } }));
      return;
    }
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `bad key ${req.headers.authorization ?? ''}` } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad JSON' } }));
      return;
    }
    const out = route(req.method ?? 'GET', path, body);
    const text = JSON.stringify(out.json);
    if (fault?.kind === 'truncate') {
      res
        .writeHead(out.status, { 'content-type': 'application/json' })
        .end(text.slice(0, Math.floor(text.length / 2)));
      return;
    }
    res.writeHead(out.status, { 'content-type': 'application/json' }).end(text);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    completionBodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
