/**
 * Values files of the Ollama Helm charts → the `ollama serve` their Deployment runs, with the
 * environment the chart's template gives it (each template read at the commit its fixture names):
 *   - otwld/ollama-helm: no command (the image's `ollama serve`), `extraEnv` (a Kubernetes env
 *     list) and `extraArgs` as given, the models `ollama.models.pull` / `.run` have it pull;
 *   - CodeAdminDe/helm-charts charts/ollama: `command: [/bin/ollama, serve]` and OLLAMA_DEBUG,
 *     OLLAMA_CONTEXT_LENGTH, OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE, OLLAMA_MAX_LOADED_MODELS,
 *     OLLAMA_KEEP_ALIVE from `ollama.logLevel`, `.contextLength`, `.flashAttention`, `.kvCacheType`,
 *     `.maxLoadedModels`, `.keepAlive` — the template's defaults (INFO, 4096, 1, q8_0, 1, 5m0s) when a
 *     key is absent — then the `env` map; models from `prePullModelList`.
 * The image is `image.repository:image.tag`; an empty tag is the chart's appVersion, not known here.
 */
import { isMap, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import { synthesized } from './arg-field.js';
import { launchesFromContainer, type EnvEntry } from './container.js';
import { kubernetesEnv, podGpuHints } from './kubernetes.js';
import type { LaunchCommand } from './launch-command.js';
import {
  locatedText,
  locOf,
  mapEntries,
  mapGet,
  mapKeyNode,
  mapPath,
  scalarFields,
  scalarText,
  seqItems,
  type YamlFile,
} from './yaml-positions.js';

const CODEADMIN_KEYS: [string, string, string][] = [
  ['logLevel', 'OLLAMA_DEBUG', 'INFO'],
  ['contextLength', 'OLLAMA_CONTEXT_LENGTH', '4096'],
  ['flashAttention', 'OLLAMA_FLASH_ATTENTION', '1'],
  ['kvCacheType', 'OLLAMA_KV_CACHE_TYPE', 'q8_0'],
  ['maxLoadedModels', 'OLLAMA_MAX_LOADED_MODELS', '1'],
  ['keepAlive', 'OLLAMA_KEEP_ALIVE', '5m0s'],
];

type Chart = 'otwld' | 'codeadmin';

function chartOf(y: YamlFile, node: Node): Chart | undefined {
  const ollama = mapGet(node, 'ollama');
  if (
    !isMap(ollama) ||
    !/(^|\/)ollama\/ollama$/.test(scalarText(y, mapPath(node, 'image', 'repository')) ?? '')
  )
    return undefined;
  if (
    CODEADMIN_KEYS.some(([k]) => mapGet(ollama, k) !== undefined) ||
    mapGet(node, 'prePullModelList') !== undefined
  )
    return 'codeadmin';
  if (
    mapGet(ollama, 'models') !== undefined ||
    mapGet(ollama, 'gpu') !== undefined ||
    mapGet(node, 'extraEnv') !== undefined
  )
    return 'otwld';
  return undefined;
}

export function isOllamaChartValues(y: YamlFile, node: Node): boolean {
  return chartOf(y, node) !== undefined;
}

export function launchesFromOllamaChartValues(y: YamlFile, node: Node, baseDir: string): LaunchCommand[] {
  const chart = chartOf(y, node);
  if (!chart) return [];
  const repoNode = mapPath(node, 'image', 'repository');
  const tag = scalarText(y, mapPath(node, 'image', 'tag')) ?? '';
  const repository = scalarText(y, repoNode) ?? 'ollama/ollama';
  const imageAt = locOf(y, repoNode);
  const image = { text: tag ? `${repository}:${tag}` : repository, ...(imageAt ? { at: imageAt } : {}) };
  const notes: Located<string>[] = [];
  if (!tag)
    notes.push({
      value: 'image.tag is empty: the chart runs its appVersion, which the values file does not name',
      ...(imageAt ? { at: imageAt } : {}),
    });
  const models: Located<string>[] = [];
  const ollamaKey = locOf(y, mapKeyNode(node, 'ollama'));
  let env: EnvEntry[];
  let command: ReturnType<typeof scalarFields> | undefined;
  if (chart === 'codeadmin') {
    notes.push({
      value:
        "CodeAdminDe ollama chart values: its Deployment runs `/bin/ollama serve` with OLLAMA_* variables made from the ollama.* keys (the template's defaults where a key is absent)",
      ...(ollamaKey ? { at: ollamaKey } : {}),
    });
    const port = scalarText(y, mapPath(node, 'service', 'targetPort')) ?? '11434';
    const fixed = (name: string, value: string): EnvEntry => ({
      name,
      value: { value, ...(ollamaKey ? { at: ollamaKey } : {}) },
      ...(ollamaKey ? { at: ollamaKey } : {}),
    });
    env = [fixed('HOME', '/'), fixed('OLLAMA_HOST', `0.0.0.0:${port}`)];
    for (const [key, name, dflt] of CODEADMIN_KEYS) {
      const v = locatedText(y, mapPath(node, 'ollama', key));
      // `default "X" .Values.ollama.key`: an empty value takes the default too
      env.push(v && v.value !== '' ? { name, value: v, ...(v.at ? { at: v.at } : {}) } : fixed(name, dflt));
    }
    env.push(fixed('OLLAMA_MODELS', '/data/models'));
    for (const e of mapEntries(mapGet(node, 'env'))) {
      const v = locatedText(y, e.value);
      if (v) env.push({ name: e.key, value: v, ...(locOf(y, e.keyNode) ? { at: locOf(y, e.keyNode) } : {}) });
    }
    for (const m of seqItems(mapGet(node, 'prePullModelList'))) {
      const v = locatedText(y, m);
      if (v) models.push({ value: v.value.split('@')[0], ...(v.at ? { at: v.at } : {}) });
    }
    command = [synthesized('/bin/ollama', ollamaKey), synthesized('serve', ollamaKey)];
  } else {
    notes.push({
      value:
        'otwld ollama-helm values: its Deployment runs the image (`ollama serve`) with extraEnv and extraArgs',
      ...(ollamaKey ? { at: ollamaKey } : {}),
    });
    env = kubernetesEnv(y, mapGet(node, 'extraEnv'));
    for (const list of ['pull', 'run'])
      for (const m of seqItems(mapPath(node, 'ollama', 'models', list))) {
        const v = locatedText(y, m);
        if (v) models.push(v);
      }
  }
  const extraArgs = mapGet(node, 'extraArgs');
  const args = chart === 'otwld' && seqItems(extraArgs).length ? scalarFields(y, extraArgs) : undefined;
  const launches = launchesFromContainer({
    source: {
      file: y.file,
      kind: 'helm-values',
      object: chart === 'otwld' ? 'otwld/ollama-helm values' : 'CodeAdminDe ollama chart values',
    },
    baseDir,
    image,
    ...(command ? { command } : {}),
    ...(args ? { args } : {}),
    env,
    kubernetesVars: true,
    gpuHints: podGpuHints(y, node),
    notes,
    unsetReason: "is not set in the chart's values",
  });
  for (const l of launches) if (models.length) l.ollamaModels = models;
  return launches;
}
