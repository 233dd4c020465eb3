/**
 * Saved workload traces (`--save-trace FILE`, `probe --replay FILE`): the JSON of WorkloadTrace,
 * checked on load so that a hand-edited or truncated file is a clear error, not a half-run trace.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import type { WorkloadTrace } from './trace.js';

const tokenIds = z.array(z.number().int().nonnegative()).min(1);
const request = z.object({
  id: z.string().min(1),
  prompt: tokenIds,
  maxTokens: z.number().int().positive(),
  start: z.array(z.object({ after: z.string(), event: z.enum(['done', 'tokens', 'cancelled']), tokens: z.number().int().positive().optional() })),
  delayMs: z.number().nonnegative(),
  cancelAfterTokens: z.number().int().positive().optional(),
  promptLogprobs: z.boolean().optional(),
  n: z.number().int().min(2).max(16).optional(),
  features: z.array(z.enum(['prefix-hit', 'after-eviction', 'burst-past-capacity', 'cancelled-neighbour', 'after-cancel', 'prompt-logprobs', 'parallel-sampling', 'unaligned-prefix'])),
});
const traceSchema = z.object({
  format: z.literal('faultline-workload-trace'),
  version: z.literal(1),
  seed: z.number().int().nonnegative(),
  capacity: z.object({ blockSize: z.number().int().positive(), numGpuBlocks: z.number().int().positive(), prefixCaching: z.boolean().optional() }),
  maxModelLen: z.number().int().positive(),
  rounds: z.array(z.array(request).min(1)).min(1),
});

export function parseTrace(text: string, file: string): WorkloadTrace {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${file} is not valid JSON: ${(e as Error).message}`, { hint: 'pass a trace written by probe --suite workload --save-trace FILE' });
  }
  const r = traceSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new UserError(`${file} is not a workload trace: ${issue.path.join('.') || '(top level)'}: ${issue.message}`, {
      hint: 'pass a trace written by probe --suite workload --save-trace FILE',
    });
  }
  for (const round of r.data.rounds) {
    const ids = new Set(round.map((q) => q.id));
    for (const q of round)
      for (const c of q.start)
        if (!ids.has(c.after)) throw new UserError(`${file}: request ${q.id} waits for ${c.after}, which is not in its round`);
    // requests that wait on each other in a circle would never start: the run would hang
    const started = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const q of round)
        if (!started.has(q.id) && q.start.every((c) => started.has(c.after))) {
          started.add(q.id);
          grew = true;
        }
    }
    const stuck = round.find((q) => !started.has(q.id));
    if (stuck) throw new UserError(`${file}: request ${stuck.id} waits, directly or not, on itself`);
  }
  return r.data as WorkloadTrace;
}

export function loadTrace(path: string, shown: string): WorkloadTrace {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read the trace ${shown}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseTrace(text, shown);
}

export function saveTrace(path: string, trace: WorkloadTrace): void {
  writeFileSync(path, JSON.stringify(trace) + '\n');
}
