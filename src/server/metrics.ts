/**
 * GET /metrics in the Prometheus text format, with vLLM's metric names (so dashboards and tests
 * written for vLLM read it): requests running/waiting, finished requests by reason, prompt and
 * generation tokens, and the speculative-decoding counters vLLM's tests use
 * (AL = 1 + accepted / drafts, acceptance rate = accepted / draft tokens).
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
  const s = ctx.runner?.scheduler;
  const c = s?.counters;
  metric('vllm:num_requests_running', 'gauge', 'Requests in the running batch.', [[label, s?.numRunning ?? 0]]);
  metric('vllm:num_requests_waiting', 'gauge', 'Requests waiting to be scheduled.', [[label, s?.numWaiting ?? 0]]);
  metric(
    'vllm:request_success_total',
    'counter',
    'Finished requests by finish reason.',
    (['stop', 'length', 'abort', 'error'] as const).map((r) => [`${label},finished_reason="${r}"`, c?.finished[r] ?? 0]),
  );
  metric('vllm:prompt_tokens_total', 'counter', 'Prompt tokens processed.', [[label, c?.promptTokens ?? 0]]);
  metric('vllm:generation_tokens_total', 'counter', 'Tokens generated.', [[label, c?.generationTokens ?? 0]]);
  metric('vllm:spec_decode_num_drafts_total', 'counter', 'Verification steps that carried drafts.', [[label, c?.specDrafts ?? 0]]);
  metric('vllm:spec_decode_num_draft_tokens_total', 'counter', 'Draft tokens proposed.', [[label, c?.specDraftTokens ?? 0]]);
  metric('vllm:spec_decode_num_accepted_tokens_total', 'counter', 'Draft tokens accepted.', [[label, c?.specAcceptedTokens ?? 0]]);
  metric('faultline:engine_steps_total', 'counter', 'Engine steps (one batched forward each).', [[label, c?.steps ?? 0]]);
  metric(
    'faultline:http_responses_total',
    'counter',
    'HTTP responses by status code.',
    [...ctx.http.responses].sort((a, b) => a[0] - b[0]).map(([code, n]) => [`code="${code}"`, n]),
  );
  return lines.join('\n') + '\n';
}
