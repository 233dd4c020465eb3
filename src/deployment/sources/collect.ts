/**
 * Launch files → LaunchCommands. Decides each file's kind (detect.ts: shell, YAML, Dockerfile,
 * systemd unit, Ollama Modelfile, Nix module) and each YAML document's format (Kubernetes object,
 * KServe object, OpenShift Template / List wrappers, a ConfigMap holding a llama-swap config,
 * Compose, Helm production-stack or Ollama chart values, llama-swap, vLLM config), then hands it
 * to its source. A Modelfile is a model definition: one LaunchCommand with no argv. KServe objects are
 * resolved after every file has been read, since an InferenceService and its runtime may be
 * in different files.
 */
import { isMap, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import { composeLookup, launchesFromCompose } from './compose.js';
import { detectFileKind } from './detect.js';
import { isProductionStackValues, launchesFromProductionStack } from './helm-production-stack.js';
import { KSERVE_KINDS, launchesFromKserve, type KserveObject } from './kserve.js';
import { launchesFromKubernetesObject } from './kubernetes.js';
import type { LaunchCommand } from './launch-command.js';
import { launchesFromShellFile, type GivenValues } from './shell.js';
import { isVllmConfig, launchFromVllmConfig, notALaunch } from './vllm-config.js';
import { isDynamoGraph, launchesFromDynamoGraph } from './dynamo-graph.js';
import { isKubeAiModel, launchesFromKubeAi } from './kubeai.js';
import { isVllmRuntime, launchesFromVllmRuntime } from './production-stack-operator.js';
import { isRayServeLlmConfig, launchesFromRayServe } from './ray-serve.js';
import { isSkyPilotTask, launchesFromSkyPilot } from './skypilot.js';
import { locOf, mapGet, scalarText, seqItems, parseYamlFile, type YamlFile } from './yaml-positions.js';
import { launchesFromDockerfile } from './dockerfile.js';
import { launchesFromSystemdUnit } from './systemd.js';
import { launchesFromNix } from './nix.js';
import { isLlamaSwapConfig, launchesFromConfigMap, launchesFromLlamaSwap } from './llama-swap.js';
import { isOllamaChartValues, launchesFromOllamaChartValues } from './ollama-helm-values.js';
import { parseModelfile } from '../engines/ollama/modelfile.js';
import { fileLocator } from './text-position.js';
import { newLaunch } from './launch-command.js';

export interface SourceFile {
  /** The path as the user wrote it (used in locations). */
  path: string;
  absPath: string;
  baseDir: string;
  text: string;
}

export interface Collected {
  launches: LaunchCommand[];
  /** Launch count per file path, in input order (0 → "no launch found"). */
  perFile: Map<string, number>;
  /** File-level remarks (e.g. YAML documents of no known launch format). */
  notes: Located<string>[];
  /** Things recognised that are not vLLM server launches (benchmark clients, SGLang servers), per file. */
  notLaunches: Located<string>[];
  /** Files (their first document that says so) that are recognisably something other than a launch, and what they are. */
  notLaunchFiles: Located<string>[];
}

export function collectLaunches(files: SourceFile[], given?: GivenValues): Collected {
  const launches: LaunchCommand[] = [];
  const kserve: KserveObject[] = [];
  const notes: Located<string>[] = [];
  const notLaunchFiles: Located<string>[] = [];
  for (const f of files) {
    const kind = detectFileKind(f.path, f.text);
    if (kind === 'shell') launches.push(...launchesFromShellFile(f.path, f.text, f.baseDir, given));
    else if (kind === 'dockerfile') launches.push(...launchesFromDockerfile(f.path, f.text, f.baseDir));
    else if (kind === 'systemd') launches.push(...launchesFromSystemdUnit(f.path, f.text, f.baseDir, given));
    else if (kind === 'nix') launches.push(...launchesFromNix(f.path, f.text, f.baseDir));
    else if (kind === 'modelfile') {
      const mf = parseModelfile(f.text, fileLocator(f.path, f.text));
      const definition = newLaunch({ file: f.path, kind: 'modelfile' }, [], f.baseDir);
      definition.modelfile = mf;
      launches.push(definition);
    } else {
      const y = parseYamlFile(f.path, f.text);
      for (const doc of y.docs) {
        if (!doc.contents) continue;
        const what = notALaunch(doc.contents as Node);
        if (what)
          notLaunchFiles.push({
            value: what,
            at: locOf(y, doc.contents) ?? { file: f.path, line: 1, column: 1 },
          });
        else launches.push(...fromYamlNode(y, doc.contents as Node, f, kserve, notes, given));
      }
    }
  }
  launches.push(...launchesFromKserve(kserve));
  const notLaunches = launches.flatMap((l) => (l.notLaunch ? [{ ...l.notLaunch, at: l.notLaunch.at ?? { file: l.source.file, line: 1, column: 1 } }] : []));
  const real = launches.filter((l) => !l.notLaunch);
  launches.length = 0;
  launches.push(...real);
  // A launch counts for every file it was assembled from (an InferenceService and its runtime).
  const perFile = new Map(files.map((f) => [f.path, 0]));
  for (const l of launches) {
    const from = new Set([l.source.file, ...l.tokens.flatMap((t) => (t.at ? [t.at.file] : []))]);
    for (const file of from) if (perFile.has(file)) perFile.set(file, (perFile.get(file) ?? 0) + 1);
  }
  return { launches, perFile, notes, notLaunches, notLaunchFiles };
}

function fromYamlNode(y: YamlFile, node: Node, f: SourceFile, kserve: KserveObject[], notes: Located<string>[], given?: GivenValues): LaunchCommand[] {
  if (!isMap(node)) return [];
  const kind = scalarText(y, mapGet(node, 'kind'));
  if (kind && mapGet(node, 'apiVersion')) {
    if (isKubeAiModel(y, node)) return launchesFromKubeAi(y, node, f.baseDir);
    if (isVllmRuntime(y, node)) return launchesFromVllmRuntime(y, node, f.baseDir);
    if (isDynamoGraph(y, node)) return launchesFromDynamoGraph(y, node, f.baseDir);
    if (KSERVE_KINDS.has(kind)) {
      kserve.push({ y, node, kind, baseDir: f.baseDir });
      return [];
    }
    // OpenShift Template and v1 List wrap other objects
    const wrapped = kind === 'Template' ? mapGet(node, 'objects') : kind === 'List' || kind.endsWith('List') ? mapGet(node, 'items') : undefined;
    if (wrapped) return seqItems(wrapped).flatMap((o) => fromYamlNode(y, o, f, kserve, notes, given));
    if (kind === 'ConfigMap') return launchesFromConfigMap(y, node, f.baseDir);
    return launchesFromKubernetesObject(y, node, f.baseDir);
  }
  if (isMap(mapGet(node, 'services'))) return launchesFromCompose(y, node, f.baseDir, composeLookup(f.absPath, given));
  if (isProductionStackValues(node)) return launchesFromProductionStack(y, node, f.baseDir);
  if (isLlamaSwapConfig(node)) return launchesFromLlamaSwap(y, node, f.baseDir);
  if (isOllamaChartValues(y, node)) return launchesFromOllamaChartValues(y, node, f.baseDir);
  if (isVllmConfig(node)) return [launchFromVllmConfig(y, node, f.absPath, f.baseDir)];
  if (isSkyPilotTask(node)) return launchesFromSkyPilot(y, node, f.baseDir);
  if (isRayServeLlmConfig(node)) return launchesFromRayServe(y, node, f.baseDir);
  // Helm values of other charts (llm-d, LWS examples …): any pod-spec-shaped `containers` list.
  const values = launchesFromKubernetesObject(y, node, f.baseDir).map((l) => ({ ...l, source: { ...l.source, kind: 'helm-values' as const } }));
  if (values.length) return values;
  notes.push({ value: 'this YAML document is not a Kubernetes object, Compose file, Helm values, llama-swap or vLLM config', at: locOf(y, node) });
  return [];
}
