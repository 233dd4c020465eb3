/**
 * Ray Serve LLM configs → launches: each `llm_configs[]` entry (under `applications[].args`, or at
 * the top level), and each of `prefill_config` / `decode_config` of the prefill/decode layout
 * (`build_pd_openai_app`; the launch's role), is a vLLM engine whose `runtime_env.env_vars` reach it: `model_loading_config.model_source` (else `model_id`) is the
 * model, and every `engine_kwargs` key becomes the flag of the same name (`tensor_parallel_size: 2`
 * → `--tensor-parallel-size 2`; true → `--x`, false → `--no-x`; mappings → JSON), as Ray passes
 * them to vLLM's AsyncEngineArgs. Each flag is located at its key.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { SourceLocation } from '../../core/errors.js';
import type { ArgToken } from './launch-command.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import {
  locOf,
  mapEntries,
  mapGet,
  mapPath,
  plainData,
  scalarText,
  seqItems,
  type YamlFile,
} from './yaml-positions.js';

/** One engine of the file: its LLMConfig node, and its role in a prefill/decode layout. */
interface EngineConfig {
  config: Node;
  role?: 'prefill' | 'decode';
  /** How the config is named in the file, e.g. "llm_configs[0]" or "prefill_config". */
  name: string;
}

/** `llm_configs[]` (top level or under `applications[].args`) and the prefill/decode layout's `prefill_config` / `decode_config`. */
function llmConfigs(doc: Node): EngineConfig[] {
  const lists = [
    mapGet(doc, 'llm_configs'),
    ...seqItems(mapGet(doc, 'applications')).map((a) => mapPath(a, 'args', 'llm_configs')),
  ];
  const listed = lists.flatMap((l) =>
    seqItems(l).map((config, i) => ({ config, name: `llm_configs[${i}]` })),
  );
  const argsNodes = [doc, ...seqItems(mapGet(doc, 'applications')).map((a) => mapGet(a, 'args'))];
  const pd = argsNodes.flatMap((args) =>
    (['prefill', 'decode'] as const).flatMap((role) => {
      const config = mapGet(args, `${role}_config`);
      return isMap(config) ? [{ config, role, name: `${role}_config` }] : [];
    }),
  );
  return [...listed, ...pd];
}

export function isRayServeLlmConfig(doc: Node): boolean {
  return llmConfigs(doc).some(
    ({ config: c }) =>
      isMap(c) &&
      (mapGet(c, 'engine_kwargs') !== undefined || mapGet(c, 'model_loading_config') !== undefined),
  );
}

export function launchesFromRayServe(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  return llmConfigs(doc).map(({ config: c, role, name }, index) => {
    const here = locOf(y, c);
    const tokens: ArgToken[] = [];
    const word = (text: string, at: SourceLocation | undefined) => tokens.push(at ? { text, at } : { text });
    const source = mapPath(c, 'model_loading_config', 'model_source') ?? mapPath(c, 'model_loading_config', 'model_id');
    word('vllm', here);
    word('serve', here);
    word(scalarText(y, source) ?? '', locOf(y, source) ?? here);
    for (const e of mapEntries(mapGet(c, 'engine_kwargs'))) {
      const flag = `--${e.key.replace(/_/g, '-')}`;
      const at = locOf(y, e.keyNode);
      const v = e.value;
      if (isScalar(v) && typeof v.value === 'boolean') word(v.value ? flag : `--no-${flag.slice(2)}`, at);
      else if (isMap(v) || isSeq(v)) {
        word(flag, at);
        word(JSON.stringify(plainData(v)), at);
      } else {
        word(flag, at);
        word(scalarText(y, v) ?? '', locOf(y, v) ?? at);
      }
    }
    const id = scalarText(y, mapPath(c, 'model_loading_config', 'model_id')) ?? String(index);
    const launch = newLaunch({ file: y.file, kind: 'ray-serve', object: `${name} (${id})` }, tokens, baseDir);
    if (role) launch.role = role;
    for (const e of mapEntries(mapPath(c, 'runtime_env', 'env_vars'))) {
      const value = scalarText(y, e.value);
      const at = locOf(y, e.value) ?? locOf(y, e.keyNode);
      if (value !== undefined) launch.env.set(e.key, at ? { value, at } : { value });
    }
    launch.notes.push({
      value: 'Ray Serve LLM config: engine_kwargs read as the vLLM flags of the same names',
      ...(here ? { at: here } : {}),
    });
    const accel = scalarText(y, mapGet(c, 'accelerator_type'));
    if (accel) launch.gpuHints.push({ value: accel, ...(locOf(y, mapGet(c, 'accelerator_type')) ? { at: locOf(y, mapGet(c, 'accelerator_type')) } : {}) });
    return launch;
  });
}
