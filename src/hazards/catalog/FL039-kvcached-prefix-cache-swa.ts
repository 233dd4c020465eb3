import { defineHazard } from '../hazard.js';
import { slidingWindowLayers } from '../conditions/model.js';
import { envEnabled } from '../conditions/runtime-switches.js';
import { prefixCaching } from '../conditions/serving-features.js';
import { affectedVersion } from '../conditions/versions.js';

/** ovg-project/kvcached#446: prefix caching with kvcached diverges on sliding-window models. */
export const FL039 = defineHazard({
  id: 'FL039',
  alias: 'kvcached-prefix-cache-swa',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'vLLM with kvcached and prefix caching on a sliding-window model answers the same greedy prompt differently within one run (coherent, but not what vanilla vLLM answers)',
  mechanism:
    'Not established; the kvcached issue was closed. The isolation in the report: prefix caching off makes kvcached ' +
    'byte-identical to vanilla vLLM, and a model without sliding-window layers is unaffected.',
  affected: { vllm: 'reported on 0.24.0 with kvcached main @315bf54; closed, resolution not stated' },
  confidence: 'reported',
  conditions: [
    envEnabled({
      name: 'kvcached',
      variable: 'ENABLE_KVCACHED',
      what: 'kvcached elastic KV memory is enabled',
    }),
    prefixCaching(),
    slidingWindowLayers(),
    affectedVersion({
      pkg: 'vllm',
      firstReported: '0.24.0',
      lastReported: '0.24.0',
      fixedBy: 'an unidentified change (the kvcached issue was closed without naming one)',
      record: 'reported on vLLM 0.24.0 with kvcached @315bf54; closed, resolution not stated',
    }),
  ],
  locateAt: 'prefix-caching',
  remedies: [
    {
      id: 'no-prefix-caching',
      change: { add: '--no-enable-prefix-caching' },
      why: 'byte-identical to vanilla vLLM with prefix caching off',
    },
    {
      id: 'no-kvcached',
      change: { env: { ENABLE_KVCACHED: null } },
      why: 'vanilla vLLM answered consistently',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'ENABLE_KVCACHED=true KVCACHED_AUTOPATCH=1 vllm serve google/gemma-4-12B-it --enable-prefix-caching --max-num-seqs 1',
      gpu: 'NVIDIA A100-SXM4-40GB',
      model: 'gemma-4-12b-it',
      vllm: '0.24.0',
      points: '--enable-prefix-caching',
    },
    clean: {
      command:
        'ENABLE_KVCACHED=true KVCACHED_AUTOPATCH=1 vllm serve google/gemma-4-12B-it --no-enable-prefix-caching --max-num-seqs 1',
      gpu: 'NVIDIA A100-SXM4-40GB',
      model: 'gemma-4-12b-it',
      vllm: '0.24.0',
    },
  },
  references: [
    {
      title:
        'ovg-project/kvcached#446: Prefix caching makes gemma-4 generations diverge from vanilla vLLM (output stays coherent, not garbled)',
      url: 'https://github.com/ovg-project/kvcached/issues/446',
    },
  ],
  docs: {
    problem:
      'The same 1464-token prompt sent four times at temperature 0, one request at a time, was answered A, A, B, B: the ' +
      'third and fourth answers were shorter but fluent. A garbage detector would not notice; only a reference comparison does.',
    exceptions:
      'kvcached is seen only through ENABLE_KVCACHED in the launch’s environment; an image that sets it (the kvcached-vllm ' +
      'images do) is not visible to lint.',
  },
});
