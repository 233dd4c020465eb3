import { defineHazard } from '../hazard.js';
import { concurrentRequests } from '../conditions/concurrency.js';
import { modelTypeIs } from '../conditions/model-type.js';
import { breakableCudaGraphs } from '../conditions/runtime-switches.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#52448: DeepSeek-V4-Flash + DSpark + breakable CUDA graphs under concurrency. */
export const FL031 = defineHazard({
  id: 'FL031',
  alias: 'dsv4-spec-breakable-cudagraph',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'DeepSeek-V4-Flash with DSpark speculative decoding, breakable CUDA graphs and ten or more concurrent requests intermittently never leaves the reasoning channel: generations loop to max_tokens or return empty turns',
  mechanism:
    'Not established; the issue was closed without a stated resolution. The high failure rate needed all three: DSpark ' +
    'drafting, breakable CUDA graphs (which the nightly turned on by itself) and in-flight concurrency ≥ 10. ' +
    '--enforce-eager did not reproduce it, and SGLang and TensorRT-LLM were clean on the same prompt.',
  affected: { vllm: 'reported on the 0.27.2rc1.dev110 nightly; closed, resolution not stated' },
  confidence: 'reported',
  conditions: [
    modelTypeIs({ name: 'deepseek-v4', family: 'DeepSeek-V4', prefixes: ['deepseek_v4'] }),
    speculativeDecoding({}),
    breakableCudaGraphs({ autoForModelTypes: ['deepseek_v4'] }),
    concurrentRequests(),
    affectedVersion({
      pkg: 'vllm',
      lastReported: '0.27.2rc1.dev110',
      fixedBy: 'an unidentified change (the issue was closed without naming one)',
      record: 'reported on the 0.27.2rc1.dev110 nightly; closed, resolution not stated',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'enforce-eager',
      change: { add: '--enforce-eager' },
      why: 'did not reproduce with eager execution',
    },
    {
      id: 'no-breakable-cuda-graphs',
      change: { env: { VLLM_USE_BREAKABLE_CUDAGRAPH: '0' } },
      why: 'the high-rate failure needed breakable graphs; whether rare failures remain without them is not established',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the failure needed DSpark drafting',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `vllm serve deepseek-ai/DeepSeek-V4-Flash --tensor-parallel-size 8 --speculative-config '{"method": "dspark", "num_speculative_tokens": 7}'`,
      model: 'deepseek-v4-flash',
      vllm: '0.27.2rc1.dev110',
      points: '--speculative-config',
    },
    clean: {
      command: `vllm serve deepseek-ai/DeepSeek-V4-Flash --tensor-parallel-size 8 --enforce-eager --speculative-config '{"method": "dspark", "num_speculative_tokens": 7}'`,
      model: 'deepseek-v4-flash',
      vllm: '0.27.2rc1.dev110',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#52448: DeepSeek-V4-Flash think-until-cap / empty turn under concurrent DSpark + breakable CUDA graphs',
      url: 'https://github.com/vllm-project/vllm/issues/52448',
    },
    {
      title:
        'vllm-project/vllm#49370: DeepSeek-V4-Flash auto-enables VLLM_USE_BREAKABLE_CUDAGRAPH (vLLM 0.25.0)',
      url: 'https://github.com/vllm-project/vllm/issues/49370',
    },
  ],
  docs: {
    problem:
      'Under concurrent tool-calling traffic, 29 % of requests (298 of 1024) thought until the 16k token cap or returned an ' +
      'empty turn with finish_reason "length"; the first ~256 requests were clean and the rate then climbed.',
    exceptions:
      'The report used DSpark; other drafters are counted here too, because the record does not separate them. Which ' +
      'models besides DeepSeek-V4 turn breakable graphs on by themselves is not established.',
  },
});
