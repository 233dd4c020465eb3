import { defineHazard } from '../hazard.js';
import { contextCheckpoints, parallelSlots, switchOff } from '../conditions/llama-cpp.js';
import { slidingWindowLayers } from '../conditions/model.js';

/** ggml-org/llama.cpp#22923: non-full SWA cache × parallel slots × context checkpoints forgets facts. */
export const FL303 = defineHazard({
  id: 'FL303',
  alias: 'llama-swa-parallel-checkpoints-forget',
  engines: ['llama.cpp'],
  severity: 'warning',
  summary:
    'llama-server serving a sliding-window model with several slots, context checkpoints and no --swa-full forgets or invents facts of long conversations (reported past ~50k tokens; --swa-full is clean)',
  mechanism:
    'Not established. Without --swa-full the sliding layers keep only the window’s cells; a slot that resumes a ' +
    'conversation restores them from a context checkpoint. The report (Gemma-4-31B, parallel 2, b9100) sees facts ' +
    'reappear or vanish past ~50k tokens, fixed on regeneration, and not with --swa-full; a restore that brings back the ' +
    'wrong cells (another slot’s, or an older window) fits, but no maintainer traced it.',
  affected: {
    llamaCpp: 'reported on b9100; closed stale without a fix, so later builds are not known to be clean',
  },
  confidence: 'reported',
  conditions: [
    slidingWindowLayers(),
    switchOff({
      name: 'swa-cache-not-full',
      fact: 'swaFull',
      role: 'bound',
      what: 'the SWA cache is window-sized (no --swa-full, the default)',
    }),
    parallelSlots(2),
    contextCheckpoints(),
  ],
  locateAt: 'parallel-slots',
  remedies: [
    {
      id: 'swa-full',
      change: { add: '--swa-full' },
      why: 'the report: --swa-full is clean (the sliding layers keep every cell; more KV memory), but with the prompt cache on it meets FL306',
    },
  ],
  nonRemedies: [
    {
      id: 'one-slot',
      change: { set: { parallel: 1 } },
      avoidsBy: 'parallel-slots',
      why: 'the report only ran parallel 2: one slot is not shown clean, and costs all concurrency',
    },
  ],
  examples: {
    failing: {
      command: 'llama-server -m /models/gemma-3-27b-it-Q4_K_M.gguf -np 2 -c 131072 -fa on -ngl 99',
      model: 'gguf-gemma-3-27b-it',
      points: '-np',
    },
    clean: {
      command: 'llama-server -m /models/gemma-3-27b-it-Q4_K_M.gguf -np 2 -c 131072 -fa on -ngl 99 --swa-full',
      model: 'gguf-gemma-3-27b-it',
    },
  },
  references: [
    {
      title:
        'ggml-org/llama.cpp#22923: SWA seems to forget key details (non-full SWA, parallel 2, ctx checkpoints; --swa-full clean)',
      url: 'https://github.com/ggml-org/llama.cpp/issues/22923',
    },
    {
      title:
        'ggml-org/llama.cpp#21769: SWA + checkpoint restoration drops mid-conversation context (Gemma 4, open)',
      url: 'https://github.com/ggml-org/llama.cpp/issues/21769',
    },
  ],
  docs: {
    problem:
      'Long conversations lose or gain details: a character who left the scene is back, a number given early is ' +
      'different; regenerating gives a correct answer. Short prompts are unaffected, so a smoke test passes.',
    exceptions:
      'Reported on Gemma 4 (here: any sliding-window model). The parallel condition counts the auto default (4 slots ' +
      'in v0.4.0). Whether one slot is clean is not established (the non-remedy says so).',
  },
});
