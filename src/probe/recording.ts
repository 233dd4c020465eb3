/**
 * Saved goldens: the reference's side of a probe, recorded so later probes can compare against it
 * without a reference server (`--save-golden FILE`, then `--golden FILE`). JSON, versioned, with
 * the settings the generations depend on; top-k lists as [token, logprob] pairs to stay compact.
 * A golden run cannot cross-score (there is no reference to ask), so it judges the first
 * divergence and repetition only, as vLLM's check_logprobs_close does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import type { Generation } from '../oracle/types.js';

export const RECORDING_FORMAT = 'faultline-probe-golden';

const stepSchema = z.object({
  token: z.number().int().nonnegative(),
  logprob: z.number(),
  top: z.array(z.tuple([z.number().int().nonnegative(), z.number()])),
});
const exchangeSchema = z.object({
  id: z.string(),
  promptTokens: z.array(z.number().int().nonnegative()).min(1),
  maxTokens: z.number().int().positive(),
  steps: z.array(stepSchema).optional(),
  finishReason: z.string().optional(),
  error: z.string().optional(),
});
const recordingSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  version: z.literal(1),
  model: z.string().optional(),
  server: z.string(),
  suite: z.string(),
  window: z.number().int().positive().optional(),
  pageSize: z.number().int().positive().optional(),
  logprobs: z.number().int().positive(),
  seed: z.number().int(),
  exchanges: z.array(exchangeSchema),
});

export type Recording = z.infer<typeof recordingSchema>;
export type RecordedExchange = z.infer<typeof exchangeSchema>;

export function recordExchange(
  id: string,
  promptTokens: readonly number[],
  maxTokens: number,
  result: { ok: true; value: Generation } | { ok: false; error: string },
): RecordedExchange {
  const base = { id, promptTokens: [...promptTokens], maxTokens };
  if (!result.ok) return { ...base, error: result.error };
  const g = result.value;
  return {
    ...base,
    steps: g.steps.map((s) => ({
      token: s.token,
      logprob: s.logprob,
      top: s.top.map((e): [number, number] => [e.token, e.logprob]),
    })),
    ...(g.finishReason ? { finishReason: g.finishReason } : {}),
  };
}

export function generationOf(e: RecordedExchange): Generation | undefined {
  if (!e.steps) return undefined;
  const steps = e.steps.map((s) => ({
    token: s.token,
    logprob: s.logprob,
    top: s.top.map(([token, logprob]) => ({ token, logprob })),
  }));
  return { tokens: steps.map((s) => s.token), steps, finishReason: e.finishReason };
}

export function saveRecording(path: string, recording: Recording): void {
  writeFileSync(path, JSON.stringify(recording) + '\n');
}

/** Where JSON.parse stopped, as file:line:col; a file that ends mid-value was cut off (a full disk, an interrupted copy). */
function invalidJson(path: string, text: string, message: string): UserError {
  const m = /position (\d+)/.exec(message);
  const truncated = /end of JSON input|Unterminated/i.test(message) || (m !== null && Number(m[1]) >= text.trimEnd().length);
  const offset = truncated ? text.trimEnd().length : m ? Number(m[1]) : 0;
  const lines = text.slice(0, offset).split('\n');
  return new UserError(
    truncated
      ? `golden file ends early, after ${text.length} bytes: it is not complete JSON (${message})`
      : `golden file is not valid JSON: ${message}`,
    {
      at: { file: path, line: lines.length, column: lines[lines.length - 1].length + 1 },
      hint: truncated
        ? 'the file was cut off (a full disk or an interrupted copy?); record it again with --save-golden FILE'
        : `golden files are written by faultline probe --save-golden (format "${RECORDING_FORMAT}")`,
    },
  );
}

export function loadRecording(path: string): Recording {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read golden file ${path}: ${(e as Error).message}`, {
      hint: 'record one first with --save-golden FILE',
    });
  }
  return parseRecording(path, text);
}

/** A golden's text (read from `path`) checked against its format. */
export function parseRecording(path: string, text: string): Recording {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw invalidJson(path, text, (e as Error).message);
  }
  const r = recordingSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new UserError(
      `not a faultline golden file: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      {
        at: { file: path, line: 1, column: 1 },
        hint: `golden files are written by faultline probe --save-golden (format "${RECORDING_FORMAT}", version 1)`,
      },
    );
  }
  for (const [i, e] of r.data.exchanges.entries())
    if (e.steps && e.steps.length !== e.maxTokens)
      throw new UserError(
        `exchange ${i} (${e.id}) has ${e.steps.length} steps for max_tokens ${e.maxTokens}`,
        { at: { file: path, line: 1, column: 1 } },
      );
  return r.data;
}
