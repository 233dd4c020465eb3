/**
 * What the main thread and an engine worker thread (shard-worker.ts) exchange. A worker holds a
 * complete Engine of its own (weights copied once, its own KV cache) for the sequences assigned to
 * it; each step the main thread posts that shard's requests with the phases decided over the whole
 * step, the worker writes logits and hidden states into a SharedArrayBuffer and signals completion
 * through a shared Int32Array (the main thread waits with Atomics.wait: the step API is synchronous).
 */
import type { AttentionSettings } from './emulate.js';
import { trtllmGenSwaSpecdec, type FaultModel } from './attention/fault-models.js';
import type { EngineOptions } from './engine.js';
import type { Model } from './model.js';

/** Engine options a worker can rebuild: everything but the backend object, which it builds from `attention`. */
export type ShardEngineOptions = Omit<EngineOptions, 'backend'>;

/** Attention settings with the fault model by name (functions do not cross threads). */
export type ShardAttention = Omit<AttentionSettings, 'faultModel'> & { faultModel: string | null };

const FAULT_MODELS: readonly FaultModel[] = [trtllmGenSwaSpecdec];

/** The settings as a worker can receive them; null when the fault model is not one a worker can rebuild. */
export function toShardAttention(s: AttentionSettings): ShardAttention | null {
  if (s.faultModel && !FAULT_MODELS.includes(s.faultModel)) return null;
  return { ...s, faultModel: s.faultModel?.name ?? null };
}

export function fromShardAttention(s: ShardAttention): AttentionSettings {
  const faultModel = s.faultModel === null ? null : FAULT_MODELS.find((f) => f.name === s.faultModel);
  if (faultModel === undefined) throw new Error(`unknown fault model ${s.faultModel}`);
  return { ...s, faultModel };
}

export interface InitMessage {
  kind: 'init';
  model: Model;
  options: ShardEngineOptions;
  attention: ShardAttention;
  /** Control words (see CONTROL below) and the error text area. */
  control: SharedArrayBuffer;
}

/** Cache bookkeeping the main thread decided since the last step, applied before the step in order. */
export type ShardOp = { kind: 'truncate'; seqId: number; len: number } | { kind: 'free'; seqId: number };

export interface StepMessage {
  kind: 'step';
  /** Sequence number of this step (the worker echoes it in CONTROL.done). */
  step: number;
  ops: ShardOp[];
  requests: { seqId: number; tokens: number[] }[];
  /** Per request: decode slice (true) or prefill; decided over the whole step. */
  decode: boolean[];
  qLenPerReq: number;
  /** A new, larger result buffer when the previous one is too small (then kept by the worker). */
  results?: SharedArrayBuffer;
}

/** Control words (Int32Array over InitMessage.control). */
export const CONTROL = {
  /** Last finished step number; the main thread waits on this word. */
  done: 0,
  /** 0: the step succeeded; 1: it threw (message in the text area); 2: a KvCacheFullError. */
  status: 1,
  /** Bytes of the error message. */
  errorLength: 2,
  /** Microseconds the worker spent on the step (balancing). */
  micros: 3,
  /** Words before the text area. */
  words: 4,
} as const;
export const ERROR_TEXT_BYTES = 4096;
export const CONTROL_BYTES = CONTROL.words * 4 + ERROR_TEXT_BYTES;

/** Floats a step's results take: per request, its logits rows then its hidden rows, in request order. */
export function resultFloats(rows: number, vocabSize: number, hiddenSize: number): number {
  return rows * (vocabSize + hiddenSize);
}
