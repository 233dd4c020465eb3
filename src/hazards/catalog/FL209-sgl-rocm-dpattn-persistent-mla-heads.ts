import { defineHazard } from '../hazard.js';
import { isMlaModel } from '../../deployment/engines/sglang/default-attention-backend.js';
import type { Condition } from '../hazard.js';
import { dpAttentionTpOne } from '../conditions/sglang/features.js';
import { amdGpu } from '../conditions/sglang/model.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';
import { noModelFacts } from '../conditions/no-model-facts.js';

const mla: Condition = {
  name: 'mla-model',
  description: 'the model uses multi-head latent attention as SGLang runs it (DeepSeek V2/V3, Kimi K2 …)',
  check: (d) =>
    !d.modelFacts
      ? noModelFacts(d, 'whether the model is MLA')
      : isMlaModel(d.modelFacts)
        ? {
            status: 'met',
            detail: `${d.modelFacts.architectures?.[0] ?? d.modelFacts.modelType ?? 'the model'} runs as MLA in SGLang`,
            at: d.model?.at,
          }
        : { status: 'not-met', detail: 'the model is not one SGLang runs as MLA', at: d.model?.at },
};

/** sgl-project/sglang PR #19247 (research/interaction-bugs.md C13). */
export const FL209 = defineHazard({
  id: 'FL209',
  alias: 'sgl-rocm-dpattn-persistent-mla-heads',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'SGLang on AMD GPUs with DP attention at attention TP 1 picks the persistent MLA decode kernel for 128 heads, which it does not support: accuracy drops',
  mechanism:
    'With --tp-size 8 --dp-size 8 every GPU holds all 128 MLA heads instead of 16; the persistent MLA decode kernel was selected without the head-count check its own comment asks for.',
  affected: { sglang: 'releases before PR #19247 (merged Feb 2026)' },
  confidence: 'confirmed',
  conditions: [
    amdGpu(),
    mla,
    dpAttentionTpOne(),
    sglangFixedByPr(19247, '2026-02', 'persistent MLA decode kernel chosen for an unsupported head count'),
  ],
  locateAt: 'dp-attention-tp-one',
  remedies: [
    { id: 'no-dp-attention', change: { unset: 'enable_dp_attention' }, why: 'the record’s workaround' },
    {
      id: 'attention-tp-above-one',
      change: { set: { dp_size: 4 } },
      label: '--dp-size 4 (attention TP 2)',
      why: 'keeps attention TP > 1, so each GPU holds a head count the kernel supports',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --dp-size 8 --enable-dp-attention --attention-backend aiter',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
      points: '--enable-dp-attention',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp-size 8 --attention-backend aiter',
      model: 'sgl-deepseek-v3',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #19247: [AMD] Fix accuracy while using --enable-dp-attention',
      url: 'https://github.com/sgl-project/sglang/pull/19247',
    },
  ],
  docs: {
    problem:
      'DeepSeek-style MLA models on AMD GPUs with DP attention at TP 8 / DP 8 lose accuracy (GSM8K 0.951 only after the fix).',
    exceptions:
      'faultline’s GPU table is NVIDIA only: an AMD launch is recognised by an AMD-only attention backend (aiter, wave); otherwise the platform is unknown.',
  },
});
