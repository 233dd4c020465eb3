/**
 * What a workload probe reports: the verdict, every request of the trace with its outcome, and which
 * workload features the corrupt requests share (the stateful analogue of the window report's
 * positions: "every corrupt request had a prefix hit after an eviction").
 */
import type { PromptLogprobComparison } from '../../oracle/prompt-logprobs.js';
import type { SequentialState } from '../../oracle/stats.js';
import type { EndpointVerdict } from '../../oracle/stats.js';
import type { RequestJudgement } from '../../oracle/verdict.js';
import { formatCapabilities, type CapabilityReport } from '../capabilities.js';
import type { CountedBy } from '../stream-tokens.js';
import type { KvCapacity } from './capacity.js';
import type { WorkloadFeature, WorkloadTrace } from './trace.js';

export type WorkloadOutcome = 'identical' | 'benign-drift' | 'corrupt' | 'failed' | 'cut-off' | 'cancelled';

export interface WorkloadRecord {
  id: string;
  round: number;
  features: WorkloadFeature[];
  promptLength: number;
  maxTokens: number;
  outcome: WorkloadOutcome;
  reasons: string[];
  errors: string[];
  judgement?: RequestJudgement;
  promptLogprobs?: PromptLogprobComparison;
  /** Why the request started although its trigger never fired (the request it waited on ended first). */
  started?: string;
  /** A streamed-then-cancelled request: tokens and events seen (several tokens per event on some servers). */
  streamed?: { tokens: number; events: number; countedBy?: CountedBy };
}

export interface FeatureShare {
  feature: WorkloadFeature;
  corrupt: number;
  judged: number;
}

export interface WorkloadReport {
  suite: 'workload';
  verdict: EndpointVerdict;
  reason: string;
  target: { url: string; model?: string };
  reference: { url: string; model?: string };
  capacity: KvCapacity & { source: 'metrics' | 'assumed' };
  /** What each server answered to the capability check before the trace (capabilities.ts). */
  capabilities: { target: CapabilityReport; reference: CapabilityReport };
  settings: { seed: number; rounds: number; maxTokens: number; logprobs: number; replayed: boolean };
  counts: Record<WorkloadOutcome, number> & { planned: number; judged: number; notRun: number };
  sequential: SequentialState;
  /** Per feature: how many corrupt and how many judged requests had it, most specific first. */
  features: FeatureShare[];
  /** Features every corrupt request had, the rarest among judged requests first. */
  sharedByCorrupt: WorkloadFeature[];
  errors: { message: string; count: number }[];
  notes: string[];
  requests: WorkloadRecord[];
  trace: WorkloadTrace;
}

const JUDGED: WorkloadOutcome[] = ['identical', 'benign-drift', 'corrupt'];

export function featureShares(records: readonly WorkloadRecord[]): { features: FeatureShare[]; shared: WorkloadFeature[] } {
  const judged = records.filter((r) => JUDGED.includes(r.outcome));
  const corrupt = judged.filter((r) => r.outcome === 'corrupt');
  const all = [...new Set(judged.flatMap((r) => r.features))];
  const features = all
    .map((feature) => ({
      feature,
      corrupt: corrupt.filter((r) => r.features.includes(feature)).length,
      judged: judged.filter((r) => r.features.includes(feature)).length,
    }))
    .sort((a, b) => b.corrupt / Math.max(1, b.judged) - a.corrupt / Math.max(1, a.judged) || a.judged - b.judged);
  const shared = corrupt.length
    ? features.filter((f) => f.corrupt === corrupt.length).map((f) => f.feature)
    : [];
  return { features, shared };
}

export function formatWorkloadReport(r: WorkloadReport): string {
  const lines = [`faultline probe --suite workload: ${r.verdict} (${r.reason})`];
  lines.push(`  target ${r.target.url}${r.target.model ? ` (${r.target.model})` : ''}; reference ${r.reference.url}, each request alone`);
  lines.push(
    `  KV capacity ${r.capacity.numGpuBlocks} blocks of ${r.capacity.blockSize} tokens (${r.capacity.source === 'metrics' ? 'from vllm:cache_config_info' : 'assumed: the server does not say'}); ${r.settings.rounds} round(s)${r.settings.replayed ? ', replayed trace' : ''}, seed ${r.settings.seed}`,
  );
  const c = r.counts;
  lines.push(
    `  requests: ${c.planned} planned, ${c.judged} judged (${c.identical} identical, ${c['benign-drift']} benign drift, ${c.corrupt} corrupt), ${c.cancelled} cancelled by the trace, ${c.failed} failed, ${c['cut-off']} cut off, ${c.notRun} not run`,
  );
  if (r.sharedByCorrupt.length) lines.push(`  every corrupt request had: ${r.sharedByCorrupt.join(', ')}`);
  for (const f of r.features.filter((x) => x.corrupt > 0)) lines.push(`    ${f.feature}: ${f.corrupt} corrupt of ${f.judged} judged`);
  for (const q of r.requests.filter((x) => x.outcome === 'corrupt').slice(0, 5))
    lines.push(`  corrupt ${q.id} [${q.features.join(', ')}]: ${q.reasons.join('; ')}`);
  for (const q of r.requests.filter((x) => x.outcome === 'failed' || x.outcome === 'cut-off').slice(0, 5))
    lines.push(`  ${q.outcome} ${q.id}: ${q.errors.join('; ')}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  lines.push(...formatCapabilities('target', r.capabilities.target));
  const lacking = r.capabilities.reference.checks.filter((x) => x.support === 'no');
  if (lacking.length) lines.push(...formatCapabilities('reference', { ...r.capabilities.reference, checks: lacking }));
  return lines.join('\n') + '\n';
}
