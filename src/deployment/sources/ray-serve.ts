/**
 * Ray Serve LLM configs → launches: each `llm_configs[]` entry (under `applications[].args`, or at
 * the top level) is a vLLM engine: `model_loading_config.model_source` (else `model_id`) is the
 * model, and every `engine_kwargs` key becomes the flag of the same name (`tensor_parallel_size: 2`
 * → `--tensor-parallel-size 2`; true → `--x`, false → `--no-x`; mappings → JSON), as Ray passes
 * them to vLLM's AsyncEngineArgs. Each flag is located at its key.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { SourceLocation } from '../../core/errors.js';
import type { ArgToken } from './launch-command.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { locOf, mapEntries, mapGet, mapPath, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

function llmConfigs(doc: Node): Node[] {
  const top = seqItems(mapGet(doc, 'llm_configs'));
  const apps = seqItems(mapGet(doc, 'applications')).flatMap((a) => seqItems(mapPath(a, 'args', 'llm_configs')));
  return [...top, ...apps];
}

export function isRayServeLlmConfig(doc: Node): boolean {
  return llmConfigs(doc).some((c) => isMap(c) && (mapGet(c, 'engine_kwargs') !== undefined || mapGet(c, 'model_loading_config') !== undefined));
}

export function launchesFromRayServe(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  return llmConfigs(doc).map((c, index) => {
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
        word(JSON.stringify(v.toJSON()), at);
      } else {
        word(flag, at);
        word(scalarText(y, v) ?? '', locOf(y, v) ?? at);
      }
    }
    const id = scalarText(y, mapPath(c, 'model_loading_config', 'model_id')) ?? String(index);
    const launch = newLaunch({ file: y.file, kind: 'ray-serve', object: `llm_configs[${index}] (${id})` }, tokens, baseDir);
    launch.notes.push({ value: 'Ray Serve LLM config: engine_kwargs read as the vLLM flags of the same names', ...(here ? { at: here } : {}) });
    const accel = scalarText(y, mapGet(c, 'accelerator_type'));
    if (accel) launch.gpuHints.push({ value: accel, ...(locOf(y, mapGet(c, 'accelerator_type')) ? { at: locOf(y, mapGet(c, 'accelerator_type')) } : {}) });
    return launch;
  });
}
