import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { gpuFamily } from '../conditions/gpu.js';
import { attentionSinks } from '../conditions/model.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm PR #49718 → PR #52148: FlashInfer on SM12x dropped attention sinks in prefill. */
export const FL010 = defineHazard({
  id: 'FL010',
  alias: 'sm12x-sinks-prefill',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'an attention-sink model (gpt-oss) on FlashInfer on SM12x ignores its sinks in prefill on vLLM builds between PR #49718 and PR #52148: gibberish output',
  mechanism:
    'PR #49718 enabled FlashInfer XQA decode, which supports sinks, on SM12x, so vLLM started choosing FlashInfer for ' +
    'gpt-oss there. Prefill, however, ran through the generic FA2 paged-prefill wrapper, which accepts a sinks argument ' +
    'but does not apply it: every prompt’s attention was computed without the sinks the model was trained with. ' +
    'PR #52148 switched SM12x sink models to FlashInfer’s sink-aware prefill wrapper.',
  affected: {
    vllm: 'nightlies containing PR #49718 (e.g. commit 02ac178) until PR #52148 (merged 2026-08-13); release numbers not established',
  },
  confidence: 'confirmed',
  conditions: [
    gpuFamily(120),
    attentionSinks(),
    flashInferBackend(),
    affectedVersion({
      pkg: 'vllm',
      onlyByPullRequest: true,
      record: 'between PR #49718 and PR #52148; which releases contain them is not established',
    }),
  ],
  locateAt: 'flashinfer-backend',
  remedies: [
    {
      id: 'triton-backend',
      change: { set: { attention_backend: 'TRITON_ATTN' } },
      why: 'the workaround used upstream; GSM8K 0.880 on GB10 with it',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'gpt-oss-20b',
      points: '--attention-backend',
      possibly: true,
    },
    clean: {
      command: 'vllm serve openai/gpt-oss-20b --attention-backend TRITON_ATTN',
      gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
      model: 'gpt-oss-20b',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm PR #49718: Add FlashInfer XQA decode support on SM12x',
      url: 'https://github.com/vllm-project/vllm/pull/49718',
    },
    {
      title: 'vllm-project/vllm PR #52148: Fix FlashInfer SM12x prefill with sinks',
      url: 'https://github.com/vllm-project/vllm/pull/52148',
    },
    {
      title: 'vllm-project/vllm PR #51987: Revert "Add FlashInfer XQA decode support on SM12x"',
      url: 'https://github.com/vllm-project/vllm/pull/51987',
    },
  ],
  docs: {
    problem:
      'gpt-oss-20b on a DGX Spark (GB10) or RTX PRO 6000 answers in gibberish: a nightly GPQA evaluation logged 1,081 ' +
      'Harmony parse errors and GSM8K 5-shot scored 0.000 instead of 0.875. The server itself reports nothing wrong; B200 ' +
      'and H100 runs were fine.',
    exceptions:
      'The affected builds are known by pull request, not by release number, so lint cannot place a version inside the ' +
      'range: with the remaining conditions met it reports "possibly affected". Check whether your build contains ' +
      'PR #49718 and not PR #52148; a build with PR #52148 uses FlashInfer’s sink-aware prefill wrapper.',
  },
});
