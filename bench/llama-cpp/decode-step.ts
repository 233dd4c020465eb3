/**
 * llama.cpp's decode step on the same model, for bench/engine.ts: tiny-swa exported as a BF16 GGUF
 * (src/gguf/), one context of B sequences on ONE thread (node-llama-cpp 3.21.1, llama.cpp v0.4.0,
 * F16 KV cache, flash attention auto), each sequence prefilled to the bench's context length. A step
 * is one new token for every sequence, evaluated together (node-llama-cpp puts them in one
 * llama_decode batch) with its logits and greedy choice; then each sequence erases that token, so
 * every step sees the same context, as the engine's rounds roll back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Model } from '../../src/engine/model.js';
import { exportGemma3 } from '../../src/gguf/gemma3-export.js';
import { serializeGguf } from '../../src/gguf/writer.js';
import { loadNodeLlamaCpp } from '../../src/llama-cpp/binding.js';

type Token = import('node-llama-cpp').Token;

export interface LlamaDecode {
  /** One decode step of every sequence; resolves when all are done and rolled back. */
  step(): Promise<void>;
  /** The greedy tokens of the last step, per sequence. */
  lastTokens: number[];
  dispose(): Promise<void>;
}

export async function llamaCppDecode(
  model: Model,
  B: number,
  prompts: number[][],
  next: number[],
): Promise<LlamaDecode> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-gguf-'));
  const file = join(dir, 'tiny-swa-bf16.gguf');
  const gguf = exportGemma3(model, 'tiny-swa', 'bf16');
  writeFileSync(file, serializeGguf(gguf.metadata, gguf.tensors));
  const binding = await loadNodeLlamaCpp();
  const llama = await binding.getLlama({
    gpu: false,
    build: 'never',
    maxThreads: 1,
    logLevel: binding.LlamaLogLevel.error,
    progressLogs: false,
  });
  const loaded = await llama.loadModel({ modelPath: file });
  const context = await loaded.createContext({
    contextSize: prompts[0].length + 16,
    sequences: B,
    threads: 1,
  });
  const sequences = Array.from({ length: B }, () => context.getSequence());
  await Promise.all(sequences.map((s, b) => s.evaluateWithoutGeneratingNewTokens(prompts[b] as Token[])));
  const at = prompts[0].length;
  const decode: LlamaDecode = {
    lastTokens: [],
    async step() {
      const outs = await Promise.all(
        sequences.map((s, b) =>
          s.controlledEvaluate([[next[b] as Token, { generateNext: { token: true } }]]),
        ),
      );
      decode.lastTokens = outs.map((o) => Number(o[0]?.next.token ?? -1));
      await Promise.all(sequences.map((s) => s.eraseContextTokenRanges([{ start: at, end: at + 1 }])));
    },
    async dispose() {
      await context.dispose();
      await loaded.dispose();
      await llama.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return decode;
}
