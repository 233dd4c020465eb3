/**
 * SGLang's flags in the shape of the vLLM flag index, for the code that edits argv words
 * (`lint --suggest`, the hazard table tests): each flag keyed by every option string it has, its
 * dest being the ServerArgs field (`tp_size` for --tensor-parallel-size / --tp-size), a
 * store_true switch a `bool` that takes no value. SGLang has no `--no-x` forms, so none are indexed.
 */
import { abbreviationMatcher, closest, type FlagIndex, type FlagKind, type FlagSpec } from '../../vllm-flags.js';
import { fieldOf, loadTable, type SglangFlag } from './flag-table.js';

const KIND: Record<SglangFlag['kind'], FlagKind> = {
  flag: 'bool',
  string: 'string',
  int: 'int',
  float: 'float',
  json: 'json',
  list: 'list',
  choice: 'choice',
};

let index: FlagIndex | undefined;

/** The index of SGLang main's flags (option spellings and value kinds barely change across releases). */
export function sglangFlagIndex(): FlagIndex {
  if (index) return index;
  const byOption = new Map<string, { spec: FlagSpec; negated: boolean }>();
  for (const f of loadTable('main').flags) {
    const spec: FlagSpec = {
      dest: fieldOf(f),
      kind: KIND[f.kind],
      aliases: f.options,
      ...(f.choices ? { choices: f.choices, choicePolicy: 'strict' as const } : {}),
    };
    for (const o of f.options) byOption.set(o, { spec, negated: false });
  }
  const built: FlagIndex = {
    lookup: (option) => byOption.get(option),
    abbreviation: abbreviationMatcher(byOption),
    suggest: (option) => closest(option, [...byOption.keys()]),
    options: () => [...byOption.keys()],
  };
  index = built;
  return built;
}
