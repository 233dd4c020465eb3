/**
 * The one line that stands for every hazard only facts not given could make apply (lint without
 * `--possible`): how many, and which options decide them. The same words in text, JSON and SARIF.
 */
import type { Finding } from '../finding.js';

/** Options that settle an unknown condition, in the order a user would reach for them. */
const DECIDING_OPTIONS = [
  '--gpu',
  '--model-config',
  '--vllm-version',
  '--flashinfer-version',
  '--sglang-version',
];

export function dependOnFactsLine(dependOnFacts: readonly Finding[]): string | undefined {
  if (dependOnFacts.length === 0) return undefined;
  const ids = [...new Set(dependOnFacts.map((f) => f.hazard.id))].sort();
  const details = dependOnFacts.flatMap((f) =>
    f.conditions.filter((c) => c.status === 'unknown').map((c) => c.detail),
  );
  const options = DECIDING_OPTIONS.filter((o) => details.some((d) => d.includes(o)));
  const deciding = options.length ? options : ['--gpu', '--model-config'];
  const decide = `${wordList(deciding)} decide${deciding.length === 1 ? 's' : ''}`;
  const n = ids.length;
  return `${n} hazard${n === 1 ? '' : 's'} depend${n === 1 ? 's' : ''} on facts not given; ${decide} them (--possible lists them: ${ids.join(', ')})`;
}

/** `a and b`, `a, b and c`. */
function wordList(xs: string[]): string {
  return xs.length <= 2 ? xs.join(' and ') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
