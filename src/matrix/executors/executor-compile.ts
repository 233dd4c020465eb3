/**
 * The `executor:` part of a plan, checked against the rest of it: GPU counts that fit the listed
 * GPUs, placeholders a remote cell can fill, settings that only one kind takes. Problems are
 * UserErrors at the plan's line:col (through `err`).
 */
import type { UserError } from '../../core/errors.js';
import type { PlanData } from '../plan.js';
import type { DataPath, LocatedYaml } from '../yaml-located.js';
import type { ExecutorData } from './executor-schema.js';

type Err = (path: DataPath, message: string, hint: string) => UserError;

/** Placeholders a Kubernetes cell cannot fill: it runs in its image, away from faultline's files. */
const LOCAL_ONLY_PLACEHOLDERS = /\{(cell_dir|run_dir|faultline_root)\}/;

export function compileExecutor(data: PlanData, yaml: LocatedYaml, err: Err): ExecutorData {
  const executor = data.executor;
  const written = (yaml.data as { executor?: { parallel?: unknown } } | null)?.executor;
  if (executor.kind !== 'local' && data.reference.gpus !== undefined)
    throw err(
      ['reference', 'gpus'],
      `reference.gpus names GPUs, but ${executor.kind} chooses them`,
      `leave reference.gpus out: the ${executor.kind} scheduler gives the reference its own GPUs`,
    );
  if (executor.kind === 'kubernetes') checkKubernetesPlaceholders(data, err);
  if (executor.kind !== 'local') return executor;
  const gpus = executor.gpus;
  if (!gpus) return executor;
  gpus.forEach((id, i) => {
    if (!/^[\w.:-]+$/.test(id))
      throw err(
        ['executor', 'gpus', i],
        `"${id}" is not one GPU id`,
        "list one GPU id (or UUID) per entry, e.g. gpus: [0, 1, 2, 3]; a cell's count comes from launch.gpus or its levels' gpus",
      );
  });
  const duplicate = gpus.find((id, i) => gpus.indexOf(id) !== i);
  if (duplicate !== undefined)
    throw err(['executor', 'gpus'], `GPU ${duplicate} is listed twice`, 'list each GPU once');
  const reserved = new Set((data.reference.gpus ?? '').split(',').filter(Boolean));
  const forCells = gpus.filter((id) => !reserved.has(id)).length;
  if (data.launch.gpus > forCells)
    throw err(
      ['launch', 'gpus'],
      `a cell needs ${data.launch.gpus} GPUs, but ${forCells} are listed for cells`,
      'list more GPUs in executor.gpus or lower launch.gpus',
    );
  for (const [name, factor] of Object.entries(data.factors))
    for (const [level, fragment] of Object.entries(factor.levels))
      if (fragment?.gpus !== undefined && fragment.gpus > forCells)
        throw err(
          ['factors', name, 'levels', level, 'gpus'],
          `level "${level}" of "${name}" needs ${fragment.gpus} GPUs, but ${forCells} are listed for cells`,
          'list more GPUs in executor.gpus, or drop the level',
        );
  return written?.parallel === undefined ? { ...executor, parallel: gpus.length } : executor;
}

function checkKubernetesPlaceholders(data: PlanData, err: Err): void {
  const check = (path: DataPath, word: string): void => {
    const m = LOCAL_ONLY_PLACEHOLDERS.exec(word);
    if (m)
      throw err(
        path,
        `{${m[1]}} cannot be filled in a Kubernetes cell`,
        'the server runs in its image, away from the run directory; use {port} and {host} only (pod logs are saved per cell)',
      );
  };
  data.launch.argv.forEach((w, i) => check(['launch', 'argv', i], w));
  for (const [k, w] of Object.entries(data.launch.env ?? {})) check(['launch', 'env', k], w);
  for (const [name, factor] of Object.entries(data.factors))
    for (const [level, fragment] of Object.entries(factor.levels)) {
      (fragment?.argv ?? []).forEach((w, i) => check(['factors', name, 'levels', level, 'argv', i], w));
      for (const [k, w] of Object.entries(fragment?.env ?? {}))
        check(['factors', name, 'levels', level, 'env', k], w);
    }
}
