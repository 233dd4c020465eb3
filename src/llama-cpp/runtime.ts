/**
 * Opens llama.cpp through node-llama-cpp for serving: checks the GGUF (and the draft's) before
 * anything loads, then one model, one context of `parallel` sequences, and for speculative decoding
 * one draft context per sequence (three sequences sharing one draft context hang in node-llama-cpp
 * 3.21.1: research llama-cpp-engine.md §5.1). Failures are UserErrors with the reason.
 */
import { basename } from 'node:path';
import { UserError } from '../core/errors.js';
import { gpt2ByteCharacters } from '../gguf/byte-vocabulary.js';
import { readGgufHeader, type GgufHeader } from '../gguf/reader.js';
import { equalShareStrategy, type BatchCounters } from './batch-strategy.js';
import { loadNodeLlamaCpp, type NodeLlamaCpp } from './binding.js';
import type { LlamaCppOptions } from './options.js';
import { plantedFaultsText } from './planted-faults.js';

type Llama = Awaited<ReturnType<NodeLlamaCpp['getLlama']>>;
type LlamaModel = Awaited<ReturnType<Llama['loadModel']>>;
export type LlamaContext = Awaited<ReturnType<LlamaModel['createContext']>>;

export interface LlamaCppRuntime {
  binding: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  /** One per sequence, in sequence order; empty without --model-draft. */
  draftContexts: LlamaContext[];
  /** KV cells each sequence holds. */
  sequenceContextSize: number;
  /** The model's trained context length (GGUF `<arch>.context_length`). */
  trainedContextLength: number;
  vocabulary: { size: number; bosId: number; eosId: number };
  batch: BatchCounters;
  /** What the start-up line says about the resolved settings. */
  summary: string;
  dispose(): Promise<void>;
}

interface Vocabulary {
  tokens: string[];
  bosId: number;
  eosId: number;
}

function vocabularyOf(path: string, h: GgufHeader, flag: string): Vocabulary {
  const tokens = h.metadata.get('tokenizer.ggml.tokens');
  const bos = h.metadata.get('tokenizer.ggml.bos_token_id');
  const eos = h.metadata.get('tokenizer.ggml.eos_token_id');
  if (!Array.isArray(tokens) || typeof bos !== 'number' || typeof eos !== 'number')
    throw new UserError(`${path} has no tokenizer.ggml.tokens / bos / eos metadata`, {
      code: 'E_MODEL',
      hint: `pass a GGUF written by \`faultline engine export-gguf\` to ${flag}`,
    });
  return { tokens: tokens.map(String), bosId: bos, eosId: eos };
}

/** The server tokenizes bytes itself: only faultline's byte vocabulary (256 byte tokens, then BOS and EOS) is served. */
function checkByteVocabulary(path: string, v: Vocabulary): void {
  const bytes = gpt2ByteCharacters();
  const ok =
    v.tokens.length === 258 &&
    bytes.every((c, i) => v.tokens[i] === c) &&
    Math.min(v.bosId, v.eosId) === 256 &&
    Math.max(v.bosId, v.eosId) === 257;
  if (!ok)
    throw new UserError(
      `${path}: its vocabulary (${v.tokens.length} tokens) is not faultline's byte vocabulary, which this runtime tokenizes itself`,
      {
        code: 'E_MODEL',
        hint: 'serve a GGUF written by `faultline engine export-gguf`',
      },
    );
}

function checkDraftVocabulary(target: Vocabulary, draftPath: string, draft: Vocabulary): void {
  const same =
    draft.tokens.length === target.tokens.length &&
    draft.tokens.every((t, i) => t === target.tokens[i]) &&
    draft.bosId === target.bosId &&
    draft.eosId === target.eosId;
  if (!same)
    throw new UserError(
      `--model-draft ${draftPath} has another vocabulary than the target (${draft.tokens.length} tokens against ${target.tokens.length}, or other token texts or BOS/EOS ids): its drafts would be other tokens`,
      {
        code: 'E_ENGINE_FLAG',
        hint: 'use a draft model exported with the same vocabulary (e.g. `faultline engine export-gguf --type q8_0` of the same model)',
      },
    );
}

function architectureOf(path: string, h: GgufHeader): string {
  const arch = h.metadata.get('general.architecture');
  if (typeof arch !== 'string')
    throw new UserError(`${path} has no general.architecture`, {
      code: 'E_MODEL',
      hint: 'pass a GGUF written by `faultline engine export-gguf`',
    });
  return arch;
}

async function orUserError<T>(what: string, run: () => Promise<T>, hint: string): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`llama.cpp could not ${what}: ${(e as Error).message}`, { code: 'E_MODEL', hint });
  }
}

export async function openLlamaCpp(modelPath: string, o: LlamaCppOptions): Promise<LlamaCppRuntime> {
  const header = readGgufHeader(modelPath, '--model');
  const arch = architectureOf(modelPath, header);
  const vocabulary = vocabularyOf(modelPath, header, '--model');
  checkByteVocabulary(modelPath, vocabulary);
  if (o.modelDraft) {
    const draftHeader = readGgufHeader(o.modelDraft, '--model-draft');
    architectureOf(o.modelDraft, draftHeader);
    checkDraftVocabulary(vocabulary, o.modelDraft, vocabularyOf(o.modelDraft, draftHeader, '--model-draft'));
  }
  const trained = header.metadata.get(`${arch}.context_length`);
  const trainedContextLength = typeof trained === 'number' ? trained : 2048;
  const perSequence = o.ctxSize === null ? trainedContextLength : Math.floor(o.ctxSize / o.parallel);

  const binding = await loadNodeLlamaCpp();
  const llama = await orUserError(
    'start',
    () =>
      binding.getLlama({
        gpu: false,
        build: 'never',
        maxThreads: o.threads,
        logLevel: binding.LlamaLogLevel.error,
        progressLogs: false,
      }),
    'reinstall node-llama-cpp (npm ci)',
  );
  const model = await orUserError(
    `load ${basename(modelPath)}`,
    () => llama.loadModel({ modelPath }),
    'pass a GGUF written by `faultline engine export-gguf`',
  );
  const batch: BatchCounters = { batches: 0, sequences: 0, maxSequences: 0 };
  const contextOptions = {
    contextSize: perSequence,
    flashAttention: o.flashAttn === 'auto' ? ('auto' as const) : o.flashAttn === 'on',
    experimentalKvCacheKeyType: o.cacheTypeK.toUpperCase() as 'F16',
    experimentalKvCacheValueType: o.cacheTypeV.toUpperCase() as 'F16',
    swaFullCache: o.swaFull,
    threads: o.threads,
    ...(o.batchSize !== null ? { batchSize: o.batchSize } : {}),
  };
  const flagHint = 'check --cache-type-k/-v, --flash-attn, --ctx-size and --batch-size';
  const context = await orUserError(
    'create the context',
    () =>
      model.createContext({
        ...contextOptions,
        sequences: o.parallel,
        batching: { itemPrioritizationStrategy: equalShareStrategy(batch) },
      }),
    flagHint,
  );
  const draftContexts: LlamaContext[] = [];
  let draftModel: LlamaModel | null = null;
  if (o.modelDraft) {
    const path = o.modelDraft;
    draftModel = await orUserError(
      `load the draft ${basename(path)}`,
      () => llama.loadModel({ modelPath: path }),
      'pass a GGUF written by `faultline engine export-gguf` to --model-draft',
    );
    for (let i = 0; i < o.parallel; i++)
      draftContexts.push(
        await orUserError(
          'create a draft context',
          () => draftModel!.createContext({ ...contextOptions, sequences: 1 }),
          flagHint,
        ),
      );
  }
  const kv = `KV ${o.cacheTypeK}/${o.cacheTypeV}`;
  const summary = `${basename(modelPath)} (${arch}) · ${o.parallel} sequence(s) of ${context.contextSize} cells · ${kv} · flash-attn ${o.flashAttn} · swa-full ${o.swaFull ? 'on' : 'off'} · batch ${context.batchSize} · context shift ${o.contextShift ? 'on' : 'off'} · threads ${o.threads}${o.modelDraft ? ` · draft ${basename(o.modelDraft)} (≤ ${o.draftMax} tokens)` : ''}${o.specType === 'ngram-simple' ? ` · prompt lookup (n-gram ${o.ngramSizeN}, ≤ ${o.ngramSizeM} tokens)` : ''}${plantedFaultsText(o.plantedFaults) ? ` · ${plantedFaultsText(o.plantedFaults)}` : ''}`;
  return {
    binding,
    llama,
    model,
    context,
    draftContexts,
    sequenceContextSize: context.contextSize,
    trainedContextLength,
    vocabulary: { size: vocabulary.tokens.length, bosId: vocabulary.bosId, eosId: vocabulary.eosId },
    batch,
    summary,
    async dispose() {
      for (const d of draftContexts) await d.dispose();
      await context.dispose();
      await draftModel?.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
