/** The llama.cpp (llama-server) and Ollama hazards (ids FL300–FL399), registered in ../index.ts with the rest. */
import type { Hazard } from '../hazard.js';
import { FL300 } from './FL300-llama-quantized-k-shift-no-rotation.js';
import { FL301 } from './FL301-llama-draft-model-speculation-off.js';
import { FL302 } from './FL302-llama-kv-types-fa-on-cpu.js';
import { FL303 } from './FL303-llama-swa-parallel-checkpoints-forget.js';
import { FL304 } from './FL304-llama-deepseek4-quantized-k-rotation.js';
import { FL305 } from './FL305-ollama-gpt-oss-quantized-kv-guard-lost.js';
import { FL306 } from './FL306-llama-swa-full-prompt-cache-logits.js';

export const LLAMA_CPP_HAZARDS: readonly Hazard[] = [FL300, FL301, FL302, FL303, FL304, FL305, FL306];
