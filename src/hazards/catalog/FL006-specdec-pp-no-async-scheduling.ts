import { defineHazard } from '../hazard.js';
import { pipelineParallel, v2ModelRunner } from '../conditions/parallelism.js';
import { asyncScheduling } from '../conditions/scheduling.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#52071: speculative decoding under pipeline parallelism without async scheduling. */
export const FL006 = defineHazard({
  id: 'FL006',
  alias: 'specdec-pp-no-async-scheduling',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'speculative decoding with pipeline parallelism and --no-async-scheduling on the V2 model runner produces wrong output or a CUDA fault',
  mechanism:
    'Per the reporter: with pipeline parallelism a request’s consecutive decodes must be spaced pp_size steps apart to ' +
    'match the ring that broadcasts sampled tokens between stages. Only the async scheduler assigns the field that ' +
    'enforces this spacing (next_decode_eligible_step); the plain scheduler selected by --no-async-scheduling reads it ' +
    'but never sets it, so a stage can consume another step’s tokens.',
  affected: { vllm: 'reported on nightly 0.26.1rc1.dev693; open' },
  confidence: 'reported',
  conditions: [
    speculativeDecoding({}),
    pipelineParallel(),
    asyncScheduling('off'),
    v2ModelRunner(),
    affectedVersion({ pkg: 'vllm', record: 'reported on 0.26.1rc1 nightlies; open, no fix' }),
  ],
  locateAt: 'no-async-scheduling',
  remedies: [
    {
      id: 'async-scheduling',
      change: { add: '--async-scheduling' },
      label: '--async-scheduling instead of --no-async-scheduling',
      why: 'the async scheduler sets the decode spacing the PP broadcast needs',
    },
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      why: 'the failure needs speculative decoding',
    },
    {
      id: 'no-pipeline-parallel',
      change: { set: { pipeline_parallel_size: 1 } },
      why: 'without pipeline stages there is no broadcast ring to fall out of step with',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: `VLLM_USE_V2_MODEL_RUNNER=1 vllm serve Qwen/Qwen3-8B --pipeline-parallel-size 2 --no-async-scheduling --speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'`,
      points: '--no-async-scheduling',
    },
    clean: {
      command: `VLLM_USE_V2_MODEL_RUNNER=1 vllm serve Qwen/Qwen3-8B --pipeline-parallel-size 2 --async-scheduling --speculative-config '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'`,
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#52071: speculative decoding under pipeline parallelism produces wrong output with --no-async-scheduling',
      url: 'https://github.com/vllm-project/vllm/issues/52071',
    },
    {
      title: 'vllm-project/vllm#57755: pipeline parallelism × speculative decoding broadcast contract',
      url: 'https://github.com/vllm-project/vllm/issues/57755',
    },
  ],
  docs: {
    problem:
      'Serving with pipeline parallelism (2, 4 or 8 stages), speculative decoding and --no-async-scheduling on the V2 ' +
      'model runner gives wrong output in some runs and a CUDA fault in others. Reported on 8× RTX 3090 with two ' +
      'speculative methods and two model families.',
    exceptions:
      'A severity of warning: one reporter, mechanism from static analysis, not confirmed by maintainers. On 0.28.0/0.29.0 ' +
      'PP with speculative decoding refuses to start (an assertion on the broadcast shape, vllm#57755), which is loud. ' +
      'Whether a release uses the V2 runner without VLLM_USE_V2_MODEL_RUNNER=1 is not established.',
  },
});
