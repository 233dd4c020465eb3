import { defineHazard, type Condition, type ConditionResult } from '../hazard.js';
import { gpuFamily } from '../conditions/gpu.js';
import { sglArg } from '../conditions/sglang/args.js';
import { nvfp4Checkpoint } from '../conditions/sglang/features.js';
import { modelIs } from '../conditions/sglang/model.js';
import { affectedVersion } from '../conditions/versions.js';

/** Speculative decoding is off: the reported defect is in the plain (non-speculative) decode path. */
function noSpeculativeDecoding(): Condition {
  return {
    name: 'no-speculative-decoding',
    description: 'speculative decoding is off (no --speculative-algorithm)',
    check(d): ConditionResult {
      const v = sglArg(d, 'speculative_algorithm');
      if (v.source === 'unknown')
        return { status: 'unknown', detail: `speculative_algorithm: ${v.why ?? ''}`, at: v.at };
      if (v.value != null)
        return { status: 'not-met', detail: `speculative decoding with ${String(v.value)}`, at: v.at };
      // Off is SGLang's default: it singles out no launch on its own.
      return { status: 'met', detail: 'no --speculative-algorithm: plain decode', at: d.at, byDefault: true };
    },
  };
}

/** sgl-project/sglang#25704, PR #25733 (research/field-2026-12-round3.md §3.3 S2). */
export const FL233 = defineHazard({
  id: 'FL233',
  alias: 'sgl-dsv4-nvfp4-no-spec-nan',
  engines: ['sglang'],
  severity: 'warning',
  summary:
    'DeepSeek-V4-Pro NVFP4 on SM100 without speculative decoding decodes NaN (TP 8) or garbage tokens (DP attention + DeepEP); only EAGLE runs were clean',
  mechanism:
    'An inverse interaction: with EAGLE speculation the model ran correctly, and with speculation off the plain decode ' +
    'path produced NaN from the second request on (TP 8) or garbage tokens (DP 8 with DP attention and DeepEP) on one ' +
    'B200 node. The same symptom was seen on H20 with DeepSeek-V4-Flash FP8. A maintainer pointed to PR #25733; its ' +
    'merge state and the decode-path cause are not established.',
  affected: {
    sglang:
      'reported on 0.5.12-era images; fix pointer PR #25733 (merge state not established); issue closed',
  },
  confidence: 'reported',
  conditions: [
    modelIs('deepseek-v4-model', 'a DeepSeek-V4 model', {
      architectures: ['DeepseekV4ForCausalLM'],
      modelTypes: ['deepseek_v4'],
      namePattern: /deepseek-v4/i,
    }),
    nvfp4Checkpoint(),
    gpuFamily(100),
    noSpeculativeDecoding(),
    affectedVersion({
      pkg: 'sglang',
      lastReported: '0.5.12',
      fixedBy: 'PR #25733 (pointed to by a maintainer; merge state not established)',
      record: 'reported on 0.5.12-era images; a maintainer pointed to PR #25733',
    }),
  ],
  locateAt: 'deepseek-v4-model',
  remedies: [
    {
      id: 'eagle-speculative-decoding',
      change: { set: { speculative_algorithm: 'EAGLE' } },
      why: 'the report’s control: with EAGLE speculation on, the same node served correct output',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path nvidia/DeepSeek-V4-Pro-NVFP4 --tp-size 8 --trust-remote-code',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v4-pro-nvfp4',
      sglang: '0.5.12',
      points: '--model-path',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path nvidia/DeepSeek-V4-Pro-NVFP4 --tp-size 8 --trust-remote-code --speculative-algorithm EAGLE',
      gpu: 'NVIDIA B200',
      model: 'sgl-deepseek-v4-pro-nvfp4',
      sglang: '0.5.12',
    },
  },
  references: [
    {
      title:
        'sgl-project/sglang#25704: DeepSeek-V4-Pro NVFP4 on B200 single-node: non-speculative decode produces NaN (TP=8) or garbage tokens (DP+DeepEP); only EAGLE works',
      url: 'https://github.com/sgl-project/sglang/issues/25704',
    },
    {
      title: 'sgl-project/sglang PR #25733 (the fix a maintainer pointed to)',
      url: 'https://github.com/sgl-project/sglang/pull/25733',
    },
  ],
  docs: {
    problem:
      'DeepSeek-V4-Pro in NVFP4 on a B200 node serves correctly with EAGLE speculation, but with speculation off it ' +
      'returns NaN from the second request on (TP 8) or garbage tokens (DP attention with DeepEP). Turning speculation ' +
      'off, a usual first step when debugging, is what breaks it.',
    exceptions:
      'One report (with a second sighting on H20 with DeepSeek-V4-Flash FP8, which is not modelled here). Releases after ' +
      '0.5.12 are "possibly affected" until one is known to contain PR #25733.',
  },
});
