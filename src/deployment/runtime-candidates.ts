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
import type { ArgValue, RuntimeValue } from './vllm-parse-types.js';

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

/** Sub-keys of JSON arguments whose values are known only at run time: [dest, dotted key, its run-time value]. */
export function runtimeSubKeys(d: Deployment): [string, string, RuntimeValue][] {
  return [...d.args].flatMap(([dest, v]) =>
    Object.entries((v as ArgValue).runtimeKeys ?? {}).map(([key, rt]): [string, string, RuntimeValue] => [
      dest,
      key,
      rt,
    ]),
  );
}

/**
 * Candidate values for a run-time sub-key: the values the flag's JSON shapes give that key, plus
 * integers, both switches and a few strings, so a condition on the key sees every kind it could be.
 */
export function subKeyCandidates(dest: string, key: string): unknown[] {
  const shaped = (JSON_SHAPES[dest] ?? []).map((shape) => valueAt(shape, key)).filter((v) => v !== undefined);
  return [...new Set([...shaped, 0, 1, 4, 8, true, false, 'auto', 'none', 'a-value'])];
}

/** The deployment with one sub-key of a JSON argument replaced. */
export function withSubKeyValue(d: Deployment, dest: string, key: string, value: unknown): Deployment {
  const old = d.args.get(dest) as ArgValue;
  const copy = structuredClone(old.value) as Record<string, unknown>;
  const path = key.split('.');
  let node: Record<string, unknown> = copy;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]] = value;
  const args = new Map(d.args);
  args.set(dest, { ...old, value: copy });
  return { ...d, args };
}

function valueAt(shape: unknown, key: string): unknown {
  let node = shape;
  for (const part of key.split('.'))
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** The deployment with one argument replaced. */
export function withArgValue(d: Deployment, dest: string, value: unknown): Deployment {
  const args = new Map(d.args);
  const old = args.get(dest);
  args.set(dest, { value, ...(old?.at ? { at: old.at } : {}) });
  return { ...d, args };
}
