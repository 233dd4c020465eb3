import { defineHazard } from '../hazard.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { attentionBackend } from '../conditions/sglang/conditions.js';
import { pagedOnlyPrefill } from '../conditions/sglang/paged-prefill.js';
import { sglangFixedByPr } from '../conditions/sglang/versions.js';

/** sgl-project/sglang PR #31501 (research/interaction-bugs.md C1). */
export const FL200 = defineHazard({
  id: 'FL200',
  alias: 'sgl-fi-swa-paged-prefill-no-window',
  engines: ['sglang'],
  severity: 'error',
  summary:
    'SGLang on the FlashInfer backend prefilling a sliding-window model through the paged-only wrapper (deterministic inference, piecewise CUDA graphs, multimodal models, SGLANG_FLASHINFER_USE_PAGED=1) attends keys outside the window',
  mechanism:
    'The SWA paged prefill wrapper was planned without window_left, so FlashInfer compiled the per-element window mask out; ' +
    'the window_left passed at run time only drove coarse per-tile KV skipping, so tokens past the window attended stale keys. ' +
    'On SM100 the plan/run mismatch made outputs wrong from the first positions.',
  affected: {
    sglang:
      'releases before PR #31501 (merged Jul 2026); 0.5.6.post2 and earlier are affected, the first fixed release is not established',
  },
  confidence: 'confirmed',
  conditions: [
    attentionBackend(
      'flashinfer-backend',
      ['flashinfer'],
      ['prefill'],
      'prefill runs on the FlashInfer attention backend',
    ),
    slidingWindowLayers(),
    pagedOnlyPrefill(),
    sglangFixedByPr(31501, '2026-07', 'the SWA paged prefill wrapper is planned without window_left'),
  ],
  locateAt: 'paged-only-prefill',
  remedies: [
    {
      id: 'ragged-prefill',
      change: { unset: 'enable_deterministic_inference' },
      label: 'drop the paged-only trigger (here --enable-deterministic-inference)',
      why: 'the ragged prefill path plans the window correctly; the record’s workaround is to leave the paged-only triggers off',
    },
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'triton' } },
      why: 'the defect is in the FlashInfer backend’s SWA wrapper planning; the record’s other workaround is a non-FlashInfer backend',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'python3 -m sglang.launch_server --model-path google/gemma-3-1b-it --attention-backend flashinfer --enable-deterministic-inference',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-1b-it',
      sglang: '0.5.6.post2',
      points: '--enable-deterministic-inference',
    },
    clean: {
      command:
        'python3 -m sglang.launch_server --model-path google/gemma-3-1b-it --attention-backend flashinfer',
      gpu: 'NVIDIA H100 80GB HBM3',
      model: 'sgl-gemma-3-1b-it',
      sglang: '0.5.6.post2',
    },
  },
  references: [
    {
      title: 'sgl-project/sglang PR #31501: Pass window_left at plan time for the SWA paged prefill wrapper',
      url: 'https://github.com/sgl-project/sglang/pull/31501',
    },
  ],
  docs: {
    problem:
      'A sliding-window model (Gemma 2/3, GPT-OSS) served on FlashInfer with deterministic inference, piecewise CUDA-graph prefill or a multimodal checkpoint answers with text that drifts once prompts pass the window; on B200 it is wrong from the start. Nothing is logged.',
    exceptions:
      'Which release first contains PR #31501 is not established: a release after 0.5.6.post2 is "possibly affected". Multi-item scoring also takes the paged path.',
  },
});
