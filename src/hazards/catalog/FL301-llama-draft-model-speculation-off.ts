import { defineHazard } from '../hazard.js';
import { draftModelGiven, specTypeNone } from '../conditions/llama-cpp.js';

/** ggml-org/llama.cpp#25345: -md given, --spec-type left at none: the draft loads and speculation stays off. */
export const FL301 = defineHazard({
  id: 'FL301',
  alias: 'llama-draft-model-speculation-off',
  engines: ['llama.cpp'],
  severity: 'warning',
  summary:
    'llama-server loads the draft model (-md) but --spec-type is at its none default: speculative decoding is silently off (a note: no output is wrong, the speed-up and the memory are not what the launch asks for)',
  mechanism:
    'Since llama-server chose speculation by --spec-type (none, draft-simple, draft-eagle3, draft-mtp, ngram-…), a draft ' +
    'model alone no longer turns it on: the server loads the draft model, holds its weights and KV cache, and decodes ' +
    'without it, "with no hint that speculation is inactive" (the report). Older builds, whose -md alone enabled ' +
    'speculation (with --draft-max), behave differently, so a launch copied from them loses its speculation silently. ' +
    'v0.4.0 infers a type from the draft GGUF only for sidecars (architecture dflash, or an MTP nextn head; ' +
    'common_speculative_types_from_gguf): a plain draft model infers none.',
  affected: {
    llamaCpp:
      'builds whose llama-server has --spec-type with a none default (v0.4.0’s table has it); reported in ggml-org/llama.cpp#25345, which asks for a warning',
  },
  confidence: 'reported',
  conditions: [draftModelGiven(), specTypeNone()],
  locateAt: 'draft-model',
  remedies: [
    {
      id: 'spec-type-draft',
      change: { add: ['--spec-type', 'draft-simple'] },
      why: 'names the speculation the draft model serves: the draft loop runs (the report’s fix)',
    },
    {
      id: 'no-draft-model',
      change: { unset: 'spec_draft_model' },
      why: 'when speculation is not wanted, the draft model is memory spent for nothing',
    },
  ],
  nonRemedies: [
    {
      id: 'draft-max',
      change: { add: ['--spec-draft-n-max', '16'] },
      why: 'a draft length does not choose a speculation type: speculation stays off',
    },
  ],
  examples: {
    failing: {
      command:
        'llama-server -m /models/Qwen3-32B-Q4_K_M.gguf -md /models/Qwen3-0.6B-Q8_0.gguf -ngl 99 -ngld 99',
      points: '-md',
    },
    clean: {
      command:
        'llama-server -m /models/Qwen3-32B-Q4_K_M.gguf -md /models/Qwen3-0.6B-Q8_0.gguf --spec-type draft-simple -ngl 99 -ngld 99',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp#25345: -md provided but --spec-type at its none default: speculation silently inactive',
      url: 'https://github.com/ggml-org/llama.cpp/issues/25345',
    },
  ],
  docs: {
    problem:
      'The server starts, loads both models and answers correctly, only without speculation: tokens per second are ' +
      'those of the target alone and the draft model’s memory is spent for nothing. Nothing in the log says so.',
    exceptions:
      'A note rather than corruption: lint reports it as a warning because the catalog has no lower level. Builds from ' +
      'before --spec-type took -md alone as speculation; lint reads the launch with the newest flag table unless ' +
      '--llama-cpp-version names the release.',
  },
});
