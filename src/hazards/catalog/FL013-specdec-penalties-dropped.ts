import { defineHazard } from '../hazard.js';
import { samplingPenalties } from '../conditions/sampling-penalties.js';
import { speculativeDecoding } from '../conditions/speculative.js';
import { affectedVersion } from '../conditions/versions.js';

/** vllm-project/vllm#18902 → PR #19482: vLLM V1 ignored sampling penalties under speculative decoding. */
export const FL013 = defineHazard({
  id: 'FL013',
  alias: 'specdec-penalties-dropped',
  engines: ['vllm'],
  severity: 'warning',
  summary:
    'speculative decoding on vLLM V1 builds before PR #19482 silently ignores frequency, presence and repetition penalties (and bad_words, allowed_token_ids)',
  mechanism:
    'Under speculative decoding the V1 rejection sampler decides every token, and it did not run the logits processors ' +
    'that apply penalties, so a request’s penalties changed nothing — with no warning or error. PR #19482 ' +
    'added logits processors to the rejection sampler (“previously, these parameters were silently ignored”); PR #30495 ' +
    '(merged Dec 2025) then added penalties and bad_words for async scheduling combined with speculative decoding.',
  affected: {
    vllm: 'V1 engine until PR #19482 (opened 2025-06-11, merged after 2025-10-04); async scheduling + spec + penalties from PR #30495 (Dec 2025); first fixed release not established, 0.23.1 (mid-2026) contains both',
  },
  confidence: 'confirmed',
  conditions: [
    speculativeDecoding({}),
    samplingPenalties(),
    affectedVersion({
      pkg: 'vllm',
      fixedBy: 'PR #19482',
      containsFixFrom: {
        version: '0.23.1',
        why: 'PR #19482 merged after its review of 2025-10-04 and PR #30495 in Dec 2025, while 0.23.1 release candidates were nightlies of 2026-07 (vllm#47847)',
      },
      record: 'V1 speculative decoding ignored penalties until PR #19482 (opened 2025-06-11, merged)',
    }),
  ],
  locateAt: 'speculative-decoding',
  remedies: [
    {
      id: 'no-speculative-decoding',
      change: { unset: 'speculative_config' },
      label: 'drop --speculative-config (at least for requests that set penalties)',
      why: 'the workaround on the record: without drafts every token goes through the ordinary sampler, which applies penalties',
    },
    {
      id: 'upgrade-vllm',
      change: { versions: { vllm: '0.23.1' } },
      why: 'a release cut after PR #19482 (penalties in the rejection sampler) and PR #30495 (with async scheduling) merged',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}' ` +
        `--override-generation-config '{"frequency_penalty": 0.5}'`,
      vllm: '0.9.1',
      points: '--speculative-config',
      possibly: true,
    },
    clean: {
      command:
        `vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}' ` +
        `--override-generation-config '{"frequency_penalty": 0.5}'`,
      vllm: '0.23.1',
    },
  },
  references: [
    {
      title:
        'vllm-project/vllm#18902: The frequency penalty does not work when spec decoding is enabled in V1, with no warning or error',
      url: 'https://github.com/vllm-project/vllm/issues/18902',
    },
    {
      title: 'vllm-project/vllm PR #19482: [V1] Logit processors for rejection sampler',
      url: 'https://github.com/vllm-project/vllm/pull/19482',
    },
    {
      title: 'vllm-project/vllm PR #30495: support apply penalty or bad_words for async + spec',
      url: 'https://github.com/vllm-project/vllm/pull/30495',
    },
    {
      title: 'vLLM engine arguments: --generation-config and --override-generation-config',
      url: 'https://docs.vllm.ai/en/stable/configuration/engine_args/',
    },
  ],
  docs: {
    problem:
      'With EAGLE drafting, `frequency_penalty=-2.0` and `frequency_penalty=2.0` gave identical output: the penalty was ' +
      'dropped without a warning. Requests that rely on penalties to avoid repetition — including those that inherit a ' +
      'repetition_penalty from the model’s generation_config.json — get unpenalized sampling and no sign of it.',
    exceptions:
      'Penalties are request-time sampling parameters: the launch proves them only when --override-generation-config sets ' +
      'one; otherwise they may come from requests or from the model’s generation_config.json (applied under the default ' +
      '--generation-config auto, which faultline does not read), so lint reports the hazard as "possibly affected". ' +
      '--generation-config vllm only stops the model’s defaults; requests can still set penalties. The fix is known by ' +
      'pull request, not by release number, so every vLLM version is reported as possibly affected: check whether your ' +
      'build contains PR #19482 (and PR #30495 with async scheduling). SGLang has a sibling defect (penalties weakened by ' +
      'the mean accept length, PR #33643 open) that lint does not model: it reads vLLM launches only.',
  },
});
