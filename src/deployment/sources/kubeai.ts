/**
 * KubeAI `Model` objects (kubeai.org) → the vLLM launch KubeAI builds for them: with
 * `spec.engine: VLLM`, the server runs `vllm serve MODEL` with `spec.args` appended and
 * `spec.env` in its environment, where MODEL comes from `spec.url` (`hf://org/m` → org/m,
 * other schemes stay as written). `spec.resourceProfile` (`nvidia-gpu-h100:8`) names the GPU.
 * Other engines (OLlama, Infinity, FasterWhisper) are recognised and said not to be vLLM.
 */
import type { Node } from 'yaml';
import { synthesized, type ArgField } from './arg-field.js';
import { launchesFromContainer } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import { newLaunch } from './launch-command.js';
import { kubernetesEnv } from './kubernetes.js';
import { locOf, mapGet, mapPath, scalarFields, scalarText, type YamlFile } from './yaml-positions.js';

/** `kind: Model` of apiVersion kubeai.org/…. */
export function isKubeAiModel(y: YamlFile, doc: Node): boolean {
  return scalarText(y, mapGet(doc, 'kind')) === 'Model' && (scalarText(y, mapGet(doc, 'apiVersion')) ?? '').startsWith('kubeai.org/');
}

export function launchesFromKubeAi(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  const spec = mapGet(doc, 'spec');
  const name = scalarText(y, mapPath(doc, 'metadata', 'name')) ?? '?';
  const engine = scalarText(y, mapGet(spec, 'engine')) ?? '';
  const object = `Model/${name}`;
  const at = locOf(y, mapGet(spec, 'engine') ?? spec ?? doc);
  if (engine.toUpperCase() !== 'VLLM') {
    const rec = newLaunch({ file: y.file, kind: 'kubeai', object }, [], baseDir);
    rec.notLaunch = { value: `a KubeAI Model served by engine ${engine || '(none)'}, not vLLM`, ...(at ? { at } : {}) };
    return [rec];
  }
  const url = scalarText(y, mapGet(spec, 'url')) ?? '';
  const urlAt = locOf(y, mapGet(spec, 'url'));
  const model = url.replace(/^hf:\/\//, '');
  const words: ArgField[] = [synthesized('vllm', at), synthesized('serve', at), synthesized(model, urlAt ?? at)];
  const launches = launchesFromContainer({
    source: { file: y.file, kind: 'kubeai', object },
    baseDir,
    command: words,
    args: scalarFields(y, mapGet(spec, 'args')),
    env: kubernetesEnv(y, mapGet(spec, 'env')),
    kubernetesVars: true,
    gpuHints: [],
    notes: [{ value: 'KubeAI Model with engine VLLM: read as `vllm serve MODEL` + spec.args, as KubeAI launches it', ...(at ? { at } : {}) }],
    unsetReason: "is not set in the Model's env",
  });
  const profile = scalarText(y, mapGet(spec, 'resourceProfile'));
  const gpu = profile && /^nvidia-gpu-([\w-]+?)(?::\d+)?$/i.exec(profile)?.[1];
  const profileAt = locOf(y, mapGet(spec, 'resourceProfile'));
  for (const l of launches) if (gpu) l.gpuHints.push(profileAt ? { value: gpu.toUpperCase(), at: profileAt } : { value: gpu.toUpperCase() });
  return launches;
}
