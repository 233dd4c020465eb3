/**
 * HTTP client for OpenAI-compatible servers, built for a probe whose results must be trustworthy:
 *
 *  - undici Agent with connect / headers / body timeouts (a hung server fails, it never stalls);
 *  - retries with exponential backoff and jitter on 429, 5xx, 408, connection errors, timeouts and
 *    unparseable bodies, honouring Retry-After; at most `maxRetries` per call and a shared
 *    `RetryBudget` for the whole run, so a broken server cannot turn a probe into a retry storm;
 *  - every failed attempt is recorded and returned; a call that never succeeded is `ok: false`,
 *    and callers treat that as failed, never as clean;
 *  - the API key travels only in the Authorization header and is scrubbed from every message.
 */
import { Agent, request } from 'undici';
import { createRng, type Rng } from '../core/rng.js';

export interface Timeouts {
  connectMs: number;
  /** Time to the response headers: generation on a slow server happens before them. */
  headersMs: number;
  /** Longest gap between body chunks. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = { connectMs: 10_000, headersMs: 300_000, bodyMs: 60_000 };

/** Retries left for the whole run, shared by every call. */
export class RetryBudget {
  constructor(public remaining: number) {}
  take(): boolean {
    if (this.remaining <= 0) return false;
    this.remaining--;
    return true;
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  timeouts?: Partial<Timeouts>;
  maxRetries?: number;
  budget?: RetryBudget;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  seed?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Attempt {
  attempt: number;
  status?: number;
  error: string;
  retryable: boolean;
  elapsedMs: number;
}

export type CallResult<T> =
  { ok: true; value: T; attempts: Attempt[] } | { ok: false; error: string; attempts: Attempt[] };

/** "http://host:8000/v1/" → "http://host:8000": paths are added per endpoint (/v1/completions, /tokenize). */
export function normalizeBaseUrl(url: string): string {
  let u = url.trim().replace(/\/+$/, '');
  if (u.endsWith('/v1')) u = u.slice(0, -3);
  return u;
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function errorCode(e: unknown): string | undefined {
  const err = e as { code?: string; cause?: { code?: string } };
  return err?.code ?? err?.cause?.code;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (v === undefined) return undefined;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class ProbeClient {
  readonly baseUrl: string;
  private readonly agent: Agent;
  private readonly apiKey?: string;
  private readonly maxRetries: number;
  private readonly budget: RetryBudget;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly rng: Rng;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    const t = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.agent = new Agent({
      connectTimeout: t.connectMs,
      headersTimeout: t.headersMs,
      bodyTimeout: t.bodyMs,
    });
    this.apiKey = options.apiKey;
    this.maxRetries = options.maxRetries ?? 3;
    this.budget = options.budget ?? new RetryBudget(50);
    this.backoffBaseMs = options.backoffBaseMs ?? 250;
    this.backoffMaxMs = options.backoffMaxMs ?? 8_000;
    this.rng = createRng(options.seed ?? 0);
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The Authorization header value, for the few calls made outside `call` (a stream the caller abandons). */
  get authHeader(): string | undefined {
    return this.apiKey ? `Bearer ${this.apiKey}` : undefined;
  }

  /** The server's URL as it may appear in reports: no credentials, no query. */
  get displayUrl(): string {
    try {
      const u = new URL(this.baseUrl);
      u.username = '';
      u.password = '';
      u.search = '';
      return u.toString().replace(/\/$/, '');
    } catch {
      return '<invalid url>';
    }
  }

  /** Removes the API key from any text that might be shown or saved. */
  redact(text: string): string {
    return this.apiKey ? text.split(this.apiKey).join('***') : text;
  }

  getJson(path: string, signal?: AbortSignal): Promise<CallResult<unknown>> {
    return this.call('GET', path, undefined, signal);
  }

  postJson(path: string, body: unknown, signal?: AbortSignal): Promise<CallResult<unknown>> {
    return this.call('POST', path, JSON.stringify(body), signal);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private backoff(attempt: number, hinted?: number): number {
    const exp = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (attempt - 1));
    const jittered = exp * (0.5 + 0.5 * this.rng.next());
    return hinted === undefined ? jittered : Math.min(this.backoffMaxMs, Math.max(jittered, hinted));
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    signal?: AbortSignal,
  ): Promise<CallResult<unknown>> {
    const attempts: Attempt[] = [];
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const where = `${method} ${path}`;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      let hinted: number | undefined;
      let record: Omit<Attempt, 'attempt' | 'elapsedMs'>;
      try {
        const res = await request(this.baseUrl + path, {
          method,
          headers,
          body,
          dispatcher: this.agent,
          signal,
        });
        const text = await res.body.text();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          try {
            return { ok: true, value: JSON.parse(text), attempts };
          } catch {
            record = {
              status: res.statusCode,
              error: `${where}: HTTP ${res.statusCode} with a body that is not valid JSON (${text.length} bytes: ${JSON.stringify(text.slice(0, 80))}…)`,
              retryable: true,
            };
          }
        } else {
          hinted = retryAfterMs(res.headers['retry-after']);
          record = {
            status: res.statusCode,
            error: `${where}: HTTP ${res.statusCode}: ${serverMessage(text)}`,
            retryable: isRetryableStatus(res.statusCode),
          };
        }
      } catch (e) {
        if (signal?.aborted) {
          attempts.push({
            attempt,
            error: this.redact(`${where}: cancelled`),
            retryable: false,
            elapsedMs: performance.now() - started,
          });
          return { ok: false, error: `${where}: cancelled`, attempts };
        }
        const code = errorCode(e);
        const msg = (e as Error)?.message ?? String(e);
        record = {
          error: `${where}: ${code ? `${code}: ` : ''}${msg}`,
          retryable: code === undefined || RETRYABLE_CODES.has(code),
        };
      }
      const entry: Attempt = {
        ...record,
        error: this.redact(record.error),
        attempt,
        elapsedMs: Math.round(performance.now() - started),
      };
      attempts.push(entry);
      if (!entry.retryable || attempt > this.maxRetries || !this.budget.take()) {
        const why = !entry.retryable
          ? ''
          : attempt > this.maxRetries
            ? ` (gave up after ${attempt} attempt${attempt === 1 ? '' : 's'})`
            : ' (run-wide retry budget spent)';
        return { ok: false, error: entry.error + why, attempts };
      }
      await this.sleep(this.backoff(attempt, hinted));
    }
  }
}

/** The error text an OpenAI-style server put in its body, kept short. */
function serverMessage(text: string): string {
  try {
    const j = JSON.parse(text) as {
      error?: { message?: string } | string;
      message?: string;
      detail?: unknown;
    };
    const m =
      typeof j.error === 'string'
        ? j.error
        : (j.error?.message ?? j.message ?? (j.detail !== undefined ? JSON.stringify(j.detail) : undefined));
    if (m) return m.slice(0, 300);
  } catch {
    // not JSON: show the raw text
  }
  return text.slice(0, 300) || '(empty body)';
}
