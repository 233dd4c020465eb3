/**
 * The one answer every model-dependent condition gives when lint has no model config: unknown, naming
 * what stays unknown and the option that settles it, located at the model argument.
 */
import type { Deployment } from '../../deployment/deployment.js';
import type { ConditionResult } from '../hazard.js';

export function noModelFacts(d: Deployment, whatIsUnknown: string): ConditionResult {
  // llama.cpp and Ollama serve GGUF files, whose header --model-config reads as well
  const source =
    d.engine === 'llama.cpp' || d.engine === 'ollama'
      ? 'the GGUF file, config.json or checkpoint directory'
      : 'the config.json or checkpoint directory';
  return {
    status: 'unknown',
    detail: `no model config given (pass --model-config PATH to ${source}), so ${whatIsUnknown} is unknown`,
    at: d.model?.at,
  };
}
