/**
 * SkyPilot task YAML → launches: the `run:` script is shell, run with `envs:` exported (SkyPilot
 * sets them in the task's environment; `sky launch --env` may override them, so each is noted as
 * the file's default), and `resources.accelerators` (`H100:8`, `{A100: 8}`, a list of choices)
 * names the GPU when it is one model.
 */
import { isMap, isSeq, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import type { LaunchCommand } from './launch-command.js';
import { launchesFromShell } from './shell.js';
import { locOf, locatedText, mapEntries, mapGet, scalarField, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

export function isSkyPilotTask(doc: Node): boolean {
  return isMap(doc) && mapGet(doc, 'run') !== undefined && ['resources', 'envs', 'setup', 'num_nodes', 'workdir', 'service'].some((k) => mapGet(doc, k) !== undefined);
}

export function launchesFromSkyPilot(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  const run = scalarField(y, mapGet(doc, 'run'));
  if (!run) return [];
  const env = new Map<string, Located<string>>();
  for (const e of mapEntries(mapGet(doc, 'envs'))) {
    const v = locatedText(y, e.value);
    env.set(e.key, v ?? { value: '', ...(locOf(y, e.keyNode) ? { at: locOf(y, e.keyNode) } : {}) });
  }
  const launches = launchesFromShell(run.text, {
    source: { file: y.file, kind: 'skypilot', object: 'run' },
    baseDir,
    locate: (o) => run.charAt?.(o) ?? run.at ?? { file: y.file, line: 1, column: 1 },
    env,
    unsetReason: 'is not set in envs: (SkyPilot, or `sky launch --env`, sets it at run time)',
  });
  const gpus = acceleratorHints(y, mapGet(mapGet(doc, 'resources'), 'accelerators'));
  // `image_id: docker:IMAGE` runs the task in that container: its tag may name the vLLM release.
  const imageId = locatedText(y, mapGet(mapGet(doc, 'resources'), 'image_id'));
  const image = imageId && /^docker:/.test(imageId.value) ? { ...imageId, value: imageId.value.slice('docker:'.length) } : undefined;
  const nodes = scalarText(y, mapGet(doc, 'num_nodes'));
  for (const l of launches) {
    l.gpuHints.push(...gpus);
    if (image) l.image ??= image;
    if (nodes && Number(nodes) > 1) l.notes.push({ value: `num_nodes: ${nodes}: the run script runs on every node (SKYPILOT_NODE_RANK tells them apart)`, ...(locOf(y, mapGet(doc, 'num_nodes')) ? { at: locOf(y, mapGet(doc, 'num_nodes')) } : {}) });
    for (const [k, v] of env) if (v.at) l.notes.push({ value: `envs.${k} is the file's default; \`sky launch --env ${k}=…\` overrides it`, at: v.at });
  }
  return launches;
}

/** `H100:8`, `{H100: 8}`, `[H100:8, A100-80GB:8]` → GPU names (without counts). */
function acceleratorHints(y: YamlFile, node: Node | undefined): Located<string>[] {
  const names: Located<string>[] = [];
  const add = (text: string | undefined, at: ReturnType<typeof locOf>) => {
    const name = text?.split(':')[0].trim();
    if (name) names.push(at ? { value: name, at } : { value: name });
  };
  if (isMap(node)) for (const e of mapEntries(node)) add(e.key, locOf(y, e.keyNode));
  else if (isSeq(node)) for (const item of seqItems(node)) add(scalarText(y, item), locOf(y, item));
  else add(scalarText(y, node), locOf(y, node));
  return names;
}
