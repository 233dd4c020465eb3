import { defineHazard } from '../hazard.js';
import { envIs, notDisabled, speculative } from '../conditions/sglang/conditions.js';
import { amdGpu } from '../conditions/sglang/model.js';
import { sglangOpen } from '../conditions/sglang/versions.js';

/** sgl-project/sglang#24440 (research/field-2026-12.md S4). */
export const FL227 = defineHazard({
  id: 'FL227',
  alias: 'sgl-amd-eagle-aiter-unified-radix',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'reported: on AMD GPUs, EAGLE with aiter’s unified attention and the radix cache loses accuracy (Qwen3.5 FP8 / MXFP4)',
  mechanism: 'Not established; filed as a remaining feature of the unified-attention work (PR #23146).',
  affected: { sglang: 'open (closed as inactive)' },
  confidence: 'reported',
  conditions: [
    amdGpu(),
    speculative(['EAGLE', 'EAGLE3']),
    envIs(
      'aiter-unified-attention',
      'SGLANG_USE_AITER_UNIFIED_ATTN',
      ['1', 'true', 'True'],
      'aiter’s unified attention is on (SGLANG_USE_AITER_UNIFIED_ATTN=1)',
    ),
    notDisabled(
      'radix-cache',
      'disable_radix_cache',
      'the radix (prefix) cache is on (no --disable-radix-cache)',
    ),
    sglangOpen('EAGLE + aiter unified attention + radix cache accuracy'),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-radix-cache',
      change: { add: '--disable-radix-cache' },
      why: 'the record: accuracy is normal with --disable-radix-cache',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'SGLANG_USE_AITER_UNIFIED_ATTN=1 SGLANG_AITER_UNIFIED_VERIFY=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B-FP8 --attention-backend aiter --page-size 16 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4',
      points: '--speculative-algorithm',
    },
    clean: {
      command:
        'SGLANG_USE_AITER_UNIFIED_ATTN=1 SGLANG_AITER_UNIFIED_VERIFY=1 python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B-FP8 --attention-backend aiter --page-size 16 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --disable-radix-cache',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#24440: Accuracy issue with EAGLE speculative decoding and aiter’s unified attention for Qwen3.5 FP8 and MXFP4 models',
      url: 'https://github.com/sgl-project/sglang/issues/24440',
    },
  ],
  docs: {
    problem:
      'Known from a report by the feature’s AMD contributor: Qwen3.5 FP8 / MXFP4 with EAGLE (3 steps, top-k 1) on aiter unified attention answers worse unless the radix cache is off.',
  },
});
