import { defineHazard } from '../hazard.js';
import { hybridRecurrentModel } from '../conditions/hybrid-recurrent.js';
import { mambaAlignMode } from '../conditions/mamba-align.js';
import { v1ModelRunner } from '../conditions/parallelism.js';
import { asyncScheduling } from '../conditions/scheduling.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#51571: async MTP in align mode reads another request's accepted-token count. */
export const FL024 = defineHazard({
  id: 'FL024',
  alias: 'hybrid-async-align-accepted-count-race',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'async scheduling with MTP on a hybrid model in mamba_cache_mode align (V1 model runner) can hand a request another request’s accepted-token count: the wrong recurrent state is written back, tokens repeat, drop or garble',
  mechanism:
    'Accepted-token counts are copied device-to-host asynchronously into a row-indexed buffer; the next step reorders ' +
    'the rows (add_request, swap_states, condense) before the copy is awaited, then gathers by the old positions. A ' +
    'request then picks its conv-window shift and GDN snapshot with another request’s count, and the wrong state is ' +
    'written into the cache. The V2 model runner keeps the counts on the device.',
  affected: { vllm: 'current main as of Aug 2026 (label mrv1-only); fix PRs #51599 and #53919 open' },
  confidence: 'reported',
  conditions: [
    hybridRecurrentModel(),
    speculativeDecoding({ methods: ['mtp'] }),
    asyncScheduling('on'),
    mambaAlignMode(),
    v1ModelRunner(),
    affectedVersion({ pkg: 'vllm', record: 'on main as of Aug 2026; fix PRs #51599 and #53919 open' }),
  ],
  locateAt: 'async-scheduling',
  remedies: [
    {
      id: 'no-async-scheduling',
      change: { add: '--no-async-scheduling' },
      why: 'the copy is then complete before the rows move',
    },
    {
      id: 'v2-model-runner',
      change: { env: { VLLM_USE_V2_MODEL_RUNNER: '1' } },
      why: 'the V2 model runner keeps accepted counts on the device (per the fix PR’s discussion)',
    },
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'without prefix caching the state runs in "none" mode, not the align path with the race',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --async-scheduling --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}'`,
      model: 'qwen3.6-27b',
      points: '--async-scheduling',
    },
    clean: {
      command: `VLLM_USE_V2_MODEL_RUNNER=0 vllm serve Qwen/Qwen3.6-27B --enable-prefix-caching --no-async-scheduling --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}'`,
      model: 'qwen3.6-27b',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#51571: Async MTP align mode reads accepted counts from mutable InputBatch rows',
      url: 'https://github.com/vllm-project/vllm/issues/51571',
    },
    {
      title: 'vllm-project/vllm PR #53919: Await the accepted-token copy before moving batch rows (open)',
      url: 'https://github.com/vllm-project/vllm/pull/53919',
    },
    {
      title:
        'vllm-project/vllm PR #51599: Decouple async Mamba align D2H counts from InputBatch row shifts (open)',
      url: 'https://github.com/vllm-project/vllm/pull/51599',
    },
  ],
  docs: {
    problem:
      'Under concurrent load, a hybrid Qwen3.5-family model with MTP, prefix caching and async scheduling repeats, drops ' +
      'or garbles tokens; the corrupted state is written back to the cache, so it perpetuates. Related Xid 31 crashes are ' +
      'the loud sibling.',
    exceptions:
      'Found by static analysis and reproduced on vLLM-Ascend; no maintainer root cause or merged fix. Which model runner ' +
      'a release uses by default is not established, so an unset VLLM_USE_V2_MODEL_RUNNER is unknown.',
  },
});
