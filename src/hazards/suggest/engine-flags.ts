/**
 * Which flag index edits a launch's argv: SGLang's for an SGLang server command, vLLM's otherwise.
 * The argv itself says which (its program words), so callers need not carry the engine along.
 */
import type { ArgToken } from '../../deployment/argv-token.js';
import { sglangProgramLength } from '../../deployment/engines/sglang/command.js';
import { sglangFlagIndex } from '../../deployment/engines/sglang/flag-index.js';
import { chooseFlagTable } from '../../deployment/vllm-flag-table.js';
import type { FlagIndex } from '../../deployment/vllm-flags.js';

export function flagIndexForArgv(tokens: readonly { text: string }[]): FlagIndex {
  return sglangProgramLength(tokens) !== undefined ? sglangFlagIndex() : chooseFlagTable(undefined).index;
}

/** The words that start the server, for appending flags to a launch of the same engine. */
export function programWordsOf(tokens: readonly ArgToken[]): ArgToken[] {
  const n = sglangProgramLength(tokens);
  return n !== undefined
    ? tokens.slice(0, n).map((t) => ({ text: t.text }))
    : [{ text: 'vllm' }, { text: 'serve' }];
}
