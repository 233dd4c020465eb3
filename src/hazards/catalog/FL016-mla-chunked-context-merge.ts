import { defineHazard } from '../hazard.js';
import { affectedMlaPrefillPath, mlaModel, mlaPrefillContext } from '../conditions/mla.js';
import { affectedVersion } from '../conditions/versions.js';

/**
 * vllm-project/vllm#26042, PR #42642, PR #49294 (research/interaction-bugs.md B15): MLA prefill over
 * context processed in two or more chunks merged the partial results wrongly on three paths.
 */
export const FL016 = defineHazard({
  id: 'FL016',
  alias: 'mla-chunked-context-merge',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'an MLA model (DeepSeek, Kimi, GLM) prefilling against context split into two or more chunks, on CUTLASS_MLA, the FLASH_ATTN MLA prefill backend or prefill context parallelism, merges the chunks wrongly: accuracy drops, long prompts derail',
  mechanism:
    'MLA prefill attends to the cached context in chunks and merges each chunk’s partial output with the attention over ' +
    'the new tokens by their log-sum-exp. Three reported paths broke that merge: (1) CUTLASS_MLA with chunked prefill ' +
    '(vllm#26042, first seen as "CUTLASS_MLA + spec decode gives incorrect output" and root-caused to MLA chunked ' +
    'prefill; worse with smaller chunks); (2) the FlashAttention MLA prefill backend that pads V — after the prefill-backend ' +
    'split (PR #32623) it sliced V back inside the backend, changing the shape contract of the context/suffix merge ' +
    '(fixed by PR #42642); (3) prefill context parallelism, where a later context chunk holds no KV tokens for some rows ' +
    'and their finite log-sum-exp was merged as if valid (fixed by PR #49294).',
  affected: {
    vllm: '(1) reported Oct 2025, closed, fixing PR not established; (2) builds between PR #32623 and PR #42642 (merged May 2026); (3) builds before PR #49294 (merged Jul 2026); release numbers not established',
  },
  confidence: 'confirmed',
  conditions: [
    mlaModel(),
    mlaPrefillContext(),
    affectedMlaPrefillPath(),
    affectedVersion({
      pkg: 'vllm',
      onlyByPullRequest: true,
      record:
        'CUTLASS_MLA: Oct 2025, fix PR not established; FLASH_ATTN prefill: between PR #32623 and PR #42642; prefill context parallelism: before PR #49294; which releases contain them is not established',
    }),
  ],
  locateAt: 'affected-mla-prefill-path',
  remedies: [
    {
      id: 'no-chunked-context',
      change: { add: ['--no-enable-chunked-prefill', '--no-enable-prefix-caching'] },
      why: 'a path without MLA chunked context (the record’s "non-MLA-chunked path"): every prompt is prefilled whole with nothing cached to merge — at the cost of prefix caching and of chunked prefill’s interleaving',
    },
    {
      id: 'unaffected-mla-path',
      change: {
        set: { attention_backend: 'FLASHINFER_MLA', 'attention_config.mla_prefill_backend': 'FLASHINFER' },
        unset: 'prefill_context_parallel_size',
      },
      label: '--attention-backend FLASHINFER_MLA, attention_config.mla_prefill_backend=FLASHINFER, no -pcp',
      inferred: true,
      why: 'leaves all three reported paths: not CUTLASS_MLA (path 1), prefill off the FlashAttention MLA backend whose V unpadding broke the merge (path 2), no prefill context parallelism with empty later context chunks (path 3)',
    },
  ],
  nonRemedies: [
    {
      id: 'larger-prefill-chunks',
      change: { set: { max_num_batched_tokens: 16384 } },
      label: 'a larger --max-num-batched-tokens (larger prefill chunks)',
      why: 'in vllm#26042 larger chunk sizes reduced the error but did not remove it',
    },
  ],
  examples: {
    failing: {
      command: 'vllm serve deepseek-ai/DeepSeek-R1 --attention-backend CUTLASS_MLA --tensor-parallel-size 4',
      gpu: 'NVIDIA B200',
      model: 'deepseek-r1',
      points: '--attention-backend',
      possibly: true,
    },
    clean: {
      command: `vllm serve deepseek-ai/DeepSeek-R1 --attention-backend FLASHINFER_MLA --attention-config '{"mla_prefill_backend": "FLASHINFER"}' --tensor-parallel-size 4`,
      gpu: 'NVIDIA B200',
      model: 'deepseek-r1',
    },
  },
  references: [
    {
      title: 'vllm-project/vllm#26042: Incorrect outputs in MLA with chunked prefill',
      url: 'https://github.com/vllm-project/vllm/issues/26042',
    },
    {
      title:
        'vllm-project/vllm PR #25984: Enable efficient speculative decoding with FlashInfer-MLA (known-issues note)',
      url: 'https://github.com/vllm-project/vllm/pull/25984',
    },
    {
      title: 'vllm-project/vllm PR #42642: Fix FlashAttention MLA prefill V unpadding',
      url: 'https://github.com/vllm-project/vllm/pull/42642',
    },
    {
      title: 'vllm-project/vllm PR #49294: Ignore empty MLA context chunks during merge',
      url: 'https://github.com/vllm-project/vllm/pull/49294',
    },
  ],
  docs: {
    problem:
      'DeepSeek-R1 (FP4, 4×B200, CUTLASS_MLA, chunked prefill) scored 0.64 on GSM8K where 0.93 or more is expected, and ' +
      'worse with smaller chunks; with the FlashAttention MLA prefill, long prompts made the model continue unrelated ' +
      'padding text instead of answering; with prefill context parallelism, prefills were corrupted. The server reports ' +
      'nothing wrong.',
    exceptions:
      'Whether a prefill has two or more context chunks depends on prompt lengths, which a launch does not show: lint ' +
      'flags any launch where chunked prefill or prefix caching is on. The fixes are known by pull request only, so lint ' +
      'reports "possibly affected"; a build containing PR #42642 and PR #49294 is clear of paths 2 and 3. Path 1 was ' +
      'root-caused to MLA chunked prefill in general and PR #25984 lists it as a known issue for FlashInfer-MLA ' +
      'speculative decoding, so MLA backends other than CUTLASS_MLA in builds of that time may also be affected; lint ' +
      'flags only the backends the record names. When attention_config.mla_prefill_backend is unset, which prefill ' +
      'backend vLLM picks is not in the record, so the path is unknown.',
  },
});
