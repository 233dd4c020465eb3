import { defineHazard } from '../hazard.js';
import { flashInferBackend } from '../conditions/attention-backend.js';
import { fullCudaGraphs } from '../conditions/cudagraphs.js';
import { blackwellGpu } from '../conditions/gpu-blackwell.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/**
 * flashinfer-ai/flashinfer#3904 (research/interaction-bugs.md A7): a FlashInfer prefill wrapper built
 * without use_cuda_graph=True was captured in vLLM's CUDA graph on the speculative-decoding path on
 * Blackwell; fixed in vLLM by PR #48167.
 */
export const FL015 = defineHazard({
  id: 'FL015',
  alias: 'noncg-wrapper-captured-in-graph',
  engines: ['vllm'],
  severity: 'error',
  summary:
    'speculative decoding on FlashInfer on Blackwell with FULL CUDA graphs replays a prefill wrapper that was not built for graph capture: wrong attention, near-zero draft acceptance, later an illegal memory access (vLLM builds before PR #48167)',
  mechanism:
    'A FlashInfer wrapper constructed with use_cuda_graph=False (here BatchPrefillWithPagedKVCacheWrapper, fa2) keeps its ' +
    'plan buffers in default mode, which are not persistent. On vLLM’s speculative-decoding path on Blackwell its run() ' +
    'was captured in a CUDA graph and the graph was replayed after later plan() calls: the replay reads metadata the ' +
    'graph no longer owns. Attention is wrong from the start (draft acceptance falls to near zero, text is not obviously ' +
    'broken) and, as sequences grow, the stale buffers end in an illegal memory access. vLLM fixed its side in PR #48167; ' +
    'flashinfer#3904, filed by a vLLM maintainer, asks FlashInfer to warn or raise when run() is captured without ' +
    'use_cuda_graph=True (open).',
  affected: {
    vllm: 'reported on B300 (SM103) with FlashInfer 0.6.13; fixed by PR #48167 (first release and first affected build not established)',
    flashinfer: 'reported with 0.6.13; the capture-time guard asked for in #3904 is open',
  },
  confidence: 'confirmed',
  conditions: [
    blackwellGpu({ reportedOn: 'B300 (SM103)' }),
    flashInferBackend(),
    speculativeDecoding({}),
    fullCudaGraphs(),
    affectedVersion({
      pkg: 'vllm',
      onlyByPullRequest: true,
      record:
        'fixed by PR #48167; which releases contain it, and since when the path was captured, is not established',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'runs the path eagerly, the workaround flashinfer#3904 names: nothing is captured, so every run() sees its current plan()',
    },
    {
      id: 'piecewise-cuda-graphs',
      change: { set: { 'compilation_config.cudagraph_mode': 'PIECEWISE' } },
      inferred: true,
      why: 'piecewise graphs leave attention outside the captured pieces, so the wrapper runs eagerly; the record states the eager workaround, not this mode',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'`,
      gpu: 'NVIDIA B300 SXM6 AC',
      model: 'llama-3.1-8b-instruct',
      points: '--speculative-config',
      possibly: true,
    },
    clean: {
      command: `vllm serve meta-llama/Llama-3.1-8B-Instruct --enforce-eager --speculative-config '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'`,
      gpu: 'NVIDIA B300 SXM6 AC',
      model: 'llama-3.1-8b-instruct',
    },
  },
  references: [
    {
      title:
        'flashinfer-ai/flashinfer#3904: Warn or raise when wrapper run() is captured in a CUDA graph without use_cuda_graph=True',
      url: 'https://github.com/flashinfer-ai/flashinfer/issues/3904',
    },
    {
      title: 'vllm-project/vllm PR #48167 (the downstream fix referenced by flashinfer#3904)',
      url: 'https://github.com/vllm-project/vllm/pull/48167',
    },
    {
      title: 'vllm-project/vllm#49547: FlashInfer + spec-decode silently downgrades to PIECEWISE cudagraphs',
      url: 'https://github.com/vllm-project/vllm/issues/49547',
    },
  ],
  docs: {
    problem:
      'With speculative decoding on a B300 and the FlashInfer backend, draft acceptance drops to nearly zero while the ' +
      'server keeps answering; later, as sequences grow, it crashes with an illegal memory access. Until the crash nothing ' +
      'in the logs or metrics points at attention.',
    exceptions:
      'The fix is known by pull request only (vLLM PR #48167), so lint cannot place a version: with the other conditions ' +
      'met it reports "possibly affected"; a build that contains PR #48167 is not affected. The report is from a B300 ' +
      '(SM103) with FlashInfer 0.6.13 and fa2; B200 is in the same family and is flagged too, SM12x Blackwell is reported ' +
      'as unknown. On GPUs without trtllm-gen, vLLM runs FlashInfer speculative verification as prefill and downgrades to ' +
      'PIECEWISE graphs (vllm#49547), which is not this path.',
  },
});
