import { defineHazard } from '../hazard.js';
import { modelTypeIs } from '../conditions/model-type.js';
import { decodeContextParallel } from '../conditions/runtime-switches.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#54300 (research/field-2026-12-round3.md §3.2 V6, §3.6). */
export const FL044 = defineHazard({
  id: 'FL044',
  alias: 'glm-dsa-dcp-random-tokens',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'GLM-5.3 (GlmMoeDsa, sparse MLA) with decode context parallelism returns random tokens on vLLM 0.29.0 (a crash on 0.28.0); the same command was correct on 0.27.0',
  mechanism:
    'A regression between 0.27.0 and 0.28.0 in decode context parallelism for the GlmMoeDsa sparse-MLA model: ' +
    '0.28.0 crashes, 0.29.0 serves "vocabulary soup" for prompts over about 128 tokens with HTTP 200. The reported ' +
    'launch also ran FlashInferMLASparse, an FP8 KV cache and MTP with 5 tokens on 4×B200; which of these are needed ' +
    'is not established. A commenter states it is fixed on main by PR #52377.',
  affected: {
    vllm: '0.28.0 crashes (loud), 0.29.0 silent; 0.27.0 correct; "fixed on main by #52377", first release with it not established',
  },
  confidence: 'reported',
  conditions: [
    modelTypeIs({
      name: 'glm-moe-dsa-model',
      family: 'GLM-5.x with DeepSeek sparse attention (GlmMoeDsa)',
      prefixes: ['glm_moe_dsa'],
    }),
    decodeContextParallel(),
    affectedVersion({
      pkg: 'vllm',
      introduced: '0.28.0',
      lastReported: '0.29.0',
      fixedBy: 'PR #52377',
      record:
        'regressed in 0.28.0 (crash), random tokens on 0.29.0, correct on 0.27.0; fixed on main by PR #52377 per a commenter',
    }),
  ],
  locateAt: 'decode-context-parallel',
  remedies: [
    {
      id: 'vllm-0-27',
      change: { versions: { vllm: '0.27.0' } },
      label: 'run vLLM 0.27.x',
      why: 'the identical command was correct on 0.27.0',
    },
    {
      id: 'no-decode-context-parallel',
      change: { unset: 'decode_context_parallel_size' },
      inferred: true,
      why: 'the regression is in the DCP path; without DCP the model runs the path 0.27 and 0.29 share',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve zai-org/GLM-5.3-NVFP4 --tensor-parallel-size 4 --decode-context-parallel-size 4 --kv-cache-dtype fp8 --speculative-config '{"method": "mtp", "num_speculative_tokens": 5}'`,
      gpu: 'NVIDIA B200',
      model: 'glm-5.3-nvfp4',
      vllm: '0.29.0',
      points: '--decode-context-parallel-size',
    },
    clean: {
      command: `vllm serve zai-org/GLM-5.3-NVFP4 --tensor-parallel-size 4 --decode-context-parallel-size 4 --kv-cache-dtype fp8 --speculative-config '{"method": "mtp", "num_speculative_tokens": 5}'`,
      gpu: 'NVIDIA B200',
      model: 'glm-5.3-nvfp4',
      vllm: '0.27.0',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#54300: [Regression 0.27→0.28+] GlmMoeDsa (GLM-5.3) + decode-context-parallel: crashes on 0.28.0, silently returns random tokens on 0.29.0',
      url: 'https://github.com/vllm-project/vllm/issues/54300',
    },
    {
      title: 'vllm-project/vllm PR #52377 (named as the fix on main)',
      url: 'https://github.com/vllm-project/vllm/pull/52377',
    },
  ],
  docs: {
    problem:
      'GLM-5.3 served across 4 GPUs with `--decode-context-parallel-size 4` on vLLM 0.29.0 answers prompts longer than ' +
      'about 128 tokens with random tokens, with no error; 0.28.0 crashes on the same command and 0.27.0 serves it ' +
      'correctly.',
    exceptions:
      'One report; the FlashInferMLASparse backend, FP8 KV cache and MTP of the reported launch are not required here ' +
      'because the record does not say which are needed. Releases after 0.29.0 are "possibly affected" until one is ' +
      'known to contain PR #52377. FL032 is an older DCP × MTP × FULL CUDA graph hazard on MLA models.',
  },
});
