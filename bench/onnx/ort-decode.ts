/**
 * onnxruntime-node running the exported decode step (decode-graph.ts) on its CPU provider, one
 * intra-op thread (the engine's step runs on one thread too), with its inputs filled from an engine's
 * KV cache so that both compute the same token over the same keys.
 */
import ort from 'onnxruntime-node';
import { windowLeft } from '../../src/engine/config.js';
import type { KvCache } from '../../src/engine/kv-cache/cache.js';
import type { Model } from '../../src/engine/model.js';
import { decodeGraph } from './decode-graph.js';

export interface OrtDecode {
  session: ort.InferenceSession;
  /** Feeds for one step of `seqIds` (each at its cache length, feeding `tokens[i]`), past keys taken from `cache`. */
  feeds(cache: KvCache, seqIds: readonly number[], tokens: readonly number[]): Record<string, ort.Tensor>;
  run(feeds: Record<string, ort.Tensor>): Promise<Float32Array>;
}

export async function ortDecode(model: Model): Promise<OrtDecode> {
  const session = await ort.InferenceSession.create(decodeGraph(model), {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const { numLayers: L, numKvHeads: H, headDim: hd } = model.config;
  return {
    session,
    feeds(cache, seqIds, tokens) {
      const B = seqIds.length;
      const len = cache.length(seqIds[0]);
      if (seqIds.some((s) => cache.length(s) !== len)) throw new Error('every sequence of an ONNX decode step needs the same cache length');
      const feeds: Record<string, ort.Tensor> = {
        tokens: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [B]),
        positions: new ort.Tensor('int64', BigInt64Array.from(seqIds, () => BigInt(len)), [B]),
      };
      for (let l = 0; l < L; l++) {
        // the keys the new row at position `len` attends before itself: its window's
        const wl = windowLeft(model.config, l);
        const lo = wl < 0 ? 0 : Math.max(0, len - wl);
        const T = len - lo;
        const k = new Float32Array(B * H * hd * T), v = new Float32Array(B * H * T * hd);
        seqIds.forEach((seq, b) => {
          const view = cache.view(l, seq);
          for (let h = 0; h < H; h++)
            for (let j = 0; j < T; j++) {
              const ko = view.keyOffset(lo + j, h), vo = view.valueOffset(lo + j, h);
              for (let i = 0; i < hd; i++) {
                k[((b * H + h) * hd + i) * T + j] = view.values[ko + i];
                v[((b * H + h) * T + j) * hd + i] = view.values[vo + i];
              }
            }
        });
        feeds[`past_k${l}`] = new ort.Tensor('float32', k, [B, H, hd, T]);
        feeds[`past_v${l}`] = new ort.Tensor('float32', v, [B, H, T, hd]);
      }
      return feeds;
    },
    async run(feeds) {
      const out = await session.run(feeds, ['logits']);
      return out.logits.data as Float32Array;
    },
  };
}
