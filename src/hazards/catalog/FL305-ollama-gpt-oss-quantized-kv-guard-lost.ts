import { defineHazard } from '../hazard.js';
import {
  llamaFlashAttention,
  modelArchitecture,
  ollamaVersionRange,
  quantizedKvCache,
} from '../conditions/llama-cpp.js';

/** ollama/ollama PR #16955: the gpt-oss quantized-KV guard lost its callers (0.24.0 works, 0.30.x fails). */
export const FL305 = defineHazard({
  id: 'FL305',
  alias: 'ollama-gpt-oss-quantized-kv-guard-lost',
  engines: ['ollama'],
  severity: 'warning',
  summary:
    'Ollama 0.30 with OLLAMA_KV_CACHE_TYPE quantized and flash attention serves gpt-oss with the quantized KV cache its guard used to refuse (works on 0.24.0, fails on 0.30.x)',
  mechanism:
    'Ollama kept gpt-oss on an f16 KV cache whatever OLLAMA_KV_CACHE_TYPE said: gpt-oss with a quantized KV cache ' +
    'crashed llama.cpp’s server. The guard later "lost all of its callers" (the PR’s words), so 0.30.x hands the ' +
    'quantized type through and gpt-oss fails where 0.24.0 served it. Whether the failure is a crash or wrong text on ' +
    'Ollama’s own engine is not on record.',
  affected: {
    ollama: 'works on 0.24.0, fails on 0.30.x (ollama/ollama PR #16955); releases between are not on record',
  },
  confidence: 'reported',
  conditions: [
    quantizedKvCache('K'),
    llamaFlashAttention({ autoCounts: false }),
    modelArchitecture({ archs: ['gpt-oss', 'gpt_oss'], what: 'gpt-oss', modelNames: /gpt-oss/i }),
    ollamaVersionRange({
      lastGood: '0.24.0',
      firstBad: '0.30.0',
      record: 'PR #16955: works on 0.24.0, fails on 0.30.x',
    }),
  ],
  locateAt: 'quantized-k-cache',
  remedies: [
    {
      id: 'f16-kv-cache',
      change: { env: { OLLAMA_KV_CACHE_TYPE: null } },
      why: 'the f16 default is what the guard forced for gpt-oss',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command:
        'docker run -d --gpus all -e OLLAMA_FLASH_ATTENTION=1 -e OLLAMA_KV_CACHE_TYPE=q8_0 -p 11434:11434 ollama/ollama:0.30.1',
      model: 'gguf-gpt-oss-20b',
      points: 'OLLAMA_KV_CACHE_TYPE',
    },
    clean: {
      command: 'docker run -d --gpus all -e OLLAMA_FLASH_ATTENTION=1 -p 11434:11434 ollama/ollama:0.30.1',
      model: 'gguf-gpt-oss-20b',
    },
  },
  references: [
    {
      title:
        'ollama/ollama PR #16955: the gpt-oss quantized-KV guard "lost all of its callers" (works on 0.24.0, fails on 0.30.x)',
      url: 'https://github.com/ollama/ollama/pull/16955',
    },
  ],
  docs: {
    problem:
      'A server that ran gpt-oss fine on 0.24 with a q8_0 KV cache setting fails on gpt-oss after the upgrade; other ' +
      'models on the same server are fine, so the setting looks safe.',
    exceptions:
      'The model an Ollama server runs is chosen per request: lint knows it from --model-config (a GGUF says gpt-oss) or a ' +
      'model the file pulls; otherwise possibly affected. The version comes from the image tag.',
  },
});
