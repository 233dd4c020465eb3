/**
 * Values an argument known only at run time (`--tensor-parallel-size $TP`) could take, for
 * deciding whether a hazard condition depends on it: each value of a choice flag, both of a
 * switch, a spread of integers and fractions, and a few JSON shapes for the JSON flags hazards
 * read. A condition that answers the same for every candidate does not depend on the value; one
 * that does not is unknown ("possibly affected"), never silently met or not met.
 */
import type { Deployment } from './deployment.js';
import { chooseFlagTable } from './vllm-flag-table.js';
import { longOptionOf } from './vllm-flags.js';
import type { ArgValue } from './vllm-parse-types.js';

const INTS = [-1, 0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 8192, 32768, 131072];
const FLOATS = [0, 0.5, 0.9, 0.95, 1];

/** JSON shapes per flag: empty, and the kinds of setting hazards look at (drafters, backends, graph modes). */
const JSON_SHAPES: Record<string, unknown[]> = {
  speculative_config: [
    { method: 'ngram', num_speculative_tokens: 4, prompt_lookup_max: 4 },
    { method: 'mtp', num_speculative_tokens: 1 },
    { method: 'mtp', num_speculative_tokens: 7 },
    { method: 'eagle', model: 'draft', num_speculative_tokens: 3 },
    { method: 'eagle3', model: 'draft', num_speculative_tokens: 3 },
    { method: 'suffix', num_speculative_tokens: 8 },
    { model: 'draft', num_speculative_tokens: 4 },
  ],
  attention_config: [
    { backend: 'FLASHINFER' },
    { backend: 'FLASH_ATTN' },
    { backend: 'TRITON_ATTN' },
    { disable_flashinfer_q_quantization: true },
    { use_trtllm_attention: true },
    { use_trtllm_attention: false },
  ],
  compilation_config: [
    { cudagraph_mode: 'FULL' },
    { cudagraph_mode: 'FULL_AND_PIECEWISE' },
    { cudagraph_mode: 'NONE' },
    { pass_config: { fuse_allreduce_rms: true } },
    { pass_config: { fuse_allreduce_rms: false } },
  ],
  override_generation_config: [{ repetition_penalty: 1.1 }, { presence_penalty: 0.5 }],
};

/** Arguments of the launch whose values are known only at run time. */
export function runtimeArgs(d: Deployment): [string, ArgValue][] {
  return [...d.args].filter((e): e is [string, ArgValue] => (e[1] as ArgValue).runtime !== undefined);
}

/** Candidate values for a run-time argument, by the flag's kind in the launch's flag table. */
export function candidateValues(d: Deployment, dest: string): unknown[] {
  const spec = chooseFlagTable(d.versions.vllm?.value).index.lookup(longOptionOf(dest))?.spec;
  switch (spec?.kind) {
    case 'bool':
      return [true, false];
    case 'choice':
      return (spec.choices ?? []).filter((c) => c !== 'None');
    case 'int':
      return INTS;
    case 'float':
      return FLOATS;
    case 'json':
      return [{}, ...(JSON_SHAPES[dest] ?? [])];
    case 'list':
      return [['a'], ['a', 'b']];
    default:
      return ['auto', 'none', 'a-value'];
  }
}

/** The deployment with one argument replaced. */
export function withArgValue(d: Deployment, dest: string, value: unknown): Deployment {
  const args = new Map(d.args);
  const old = args.get(dest);
  args.set(dest, { value, ...(old?.at ? { at: old.at } : {}) });
  return { ...d, args };
}
