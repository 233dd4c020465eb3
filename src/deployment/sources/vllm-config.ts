/**
 * A vLLM `--config` YAML given directly (`faultline lint serve-config.yaml`): recognised by its
 * shape — one top-level mapping whose keys are vLLM option names — and launched as
 * `vllm serve --config FILE`, so the argv emulation applies vLLM's own rules to it
 * (research/configs-and-cli.md §2.3: the model comes from its `model:` key).
 */
import { isMap, isScalar, type Node } from 'yaml';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { chooseFlagTable } from '../vllm-flag-table.js';
import { locOf, mapEntries, mapGet, type YamlFile } from './yaml-positions.js';

/** Option names common enough that a mapping holding one of them is a vLLM config. */
const TELLTALE_KEYS = new Set(
  (
    'model served-model-name tensor-parallel-size pipeline-parallel-size data-parallel-size kv-cache-dtype max-model-len ' +
    'dtype quantization gpu-memory-utilization speculative-config attention-backend attention-config compilation-config ' +
    'enforce-eager max-num-seqs max-num-batched-tokens trust-remote-code enable-prefix-caching no-enable-prefix-caching ' +
    'enable-chunked-prefill async-scheduling download-dir load-format tokenizer swap-space enable-lora ' +
    'uvicorn-log-level disable-log-requests enable-expert-parallel kv-transfer-config max-cudagraph-capture-size'
  ).split(' '),
);
const OPTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function isVllmConfig(doc: Node | null | undefined): boolean {
  if (!isMap(doc) || doc.items.length === 0) return false;
  const entries = mapEntries(doc);
  if (entries.length !== doc.items.length) return false;
  if (!entries.every((e) => OPTION_NAME.test(e.key))) return false;
  if (entries.some((e) => ['apiVersion', 'kind', 'services', 'servingEngineSpec'].includes(e.key)))
    return false;
  // vLLM reads a mapping value only into a JSON-valued option: a `model:` section, `meta:` or
  // `features:` mapping makes the file data about a model (a recipe), not options for a server.
  if (entries.some((e) => isMap(e.value) && !isJsonOption(e.key))) return false;
  return entries.some((e) => TELLTALE_KEYS.has(e.key.replace(/_/g, '-')));
}

function isJsonOption(key: string): boolean {
  return chooseFlagTable(undefined).index.lookup(`--${key.replace(/_/g, '-')}`)?.spec.kind === 'json';
}

/**
 * What a YAML mapping is when it is recognisably not a launch: a vLLM recipes model page
 * (`meta:` + `model: {model_id: …}` + features / variants) describes how to serve a model and
 * starts nothing. Undefined for anything else.
 */
export function notALaunch(doc: Node): string | undefined {
  if (!isMap(doc)) return undefined;
  const model = mapGet(doc, 'model');
  if (isMap(mapGet(doc, 'meta')) && isMap(model) && mapGet(model, 'model_id') !== undefined)
    return "a vLLM recipe's model metadata (meta:, model.model_id, features, variants): the data a recipe page is built from, not a server launch";
  return undefined;
}

/** `vllm serve --config ABSPATH`, located at the first key of the file. */
export function launchFromVllmConfig(y: YamlFile, doc: Node, absPath: string, baseDir: string): LaunchCommand {
  const first = isMap(doc) ? doc.items[0]?.key : undefined;
  const at = locOf(y, isScalar(first) ? first : doc);
  const tokens = ['vllm', 'serve', '--config', absPath].map((text) => (at ? { text, at } : { text }));
  return newLaunch({ file: y.file, kind: 'vllm-config' }, tokens, baseDir);
}
