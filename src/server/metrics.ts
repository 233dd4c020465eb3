/**
 * GET /metrics in the Prometheus text format, with vLLM's metric names (so dashboards and tests
 * written for vLLM read it): requests running/waiting, finished requests by reason, prompt and
 * generation tokens, and the speculative-decoding counters vLLM's tests use
 * (AL = 1 + accepted / drafts, acceptance rate = accepted / draft tokens), and the KV cache's size,
 * usage, prefix-cache hits and preemptions.
 */
import type { ServerContext } from './context.js';

export interface HttpCounters {
  /** Requests answered, by status code. */
  responses: Map<number, number>;
}

export const newHttpCounters = (): HttpCounters => ({ responses: new Map() });

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function renderMetrics(ctx: ServerContext): string {
  const label = `model_name="${esc(ctx.modelId)}"`;
  const lines: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: [string, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}{${labels}} ${value}`);
  };
  const m = ctx.runner?.metrics();
  metric('vllm:num_requests_running', 'gauge', 'Requests in the running batch.', [[label, m?.running ?? 0]]);
  metric('vllm:num_requests_waiting', 'gauge', 'Requests waiting to be scheduled.', [[label, m?.waiting ?? 0]]);
  metric(
    'vllm:request_success_total',
    'counter',
    'Finished requests by finish reason.',
    (['stop', 'length', 'abort', 'error'] as const).map((r) => [`${label},finished_reason="${r}"`, m?.finished[r] ?? 0]),
  );
  metric('vllm:prompt_tokens_total', 'counter', 'Prompt tokens processed.', [[label, m?.promptTokens ?? 0]]);
  metric('vllm:generation_tokens_total', 'counter', 'Tokens generated.', [[label, m?.generationTokens ?? 0]]);
  // a runtime that does not count verify steps leaves num_drafts out rather than report a made-up 0
  if (!m || m.spec.drafts !== undefined) metric('vllm:spec_decode_num_drafts_total', 'counter', 'Verification steps that carried drafts.', [[label, m?.spec.drafts ?? 0]]);
  metric('vllm:spec_decode_num_draft_tokens_total', 'counter', 'Draft tokens proposed.', [[label, m?.spec.draftTokens ?? 0]]);
  metric('vllm:spec_decode_num_accepted_tokens_total', 'counter', 'Draft tokens accepted.', [[label, m?.spec.acceptedTokens ?? 0]]);
  const kv = m?.kv;
  if (kv) {
    // vLLM's cache_config_info carries the cache's size as labels: a client reads the KV capacity here
    const info = `${label},block_size="${kv.pageSize}",num_gpu_blocks="${kv.numBlocks}",enable_prefix_caching="${kv.prefixCaching ? 'True' : 'False'}"`;
    metric('vllm:cache_config_info', 'gauge', 'Information of the KV cache configuration.', [[info, 1]]);
    metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage: 1 means 100 percent.', [[label, kv.usage]]);
    metric('vllm:prefix_cache_queries_total', 'counter', 'Prompt tokens looked up in the prefix cache.', [[label, kv.queries]]);
    metric('vllm:prefix_cache_hits_total', 'counter', 'Prompt tokens found in the prefix cache.', [[label, kv.hits]]);
  }
  if (!m || m.preemptions !== undefined) metric('vllm:num_preemptions_total', 'counter', 'Preemptions (a sequence recomputed after its KV blocks were taken).', [[label, m?.preemptions ?? 0]]);
  for (const x of m?.extra ?? []) metric(x.name, x.type, x.help, [[x.labels ? `${label},${x.labels}` : label, x.value]]);
  metric(
    'faultline:http_responses_total',
    'counter',
    'HTTP responses by status code.',
    [...ctx.http.responses].sort((a, b) => a[0] - b[0]).map(([code, n]) => [`code="${code}"`, n]),
  );
  return lines.join('\n') + '\n';
}
