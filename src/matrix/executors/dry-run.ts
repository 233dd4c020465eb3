/**
 * What `faultline matrix --dry-run` shows of a cell beyond its argv: the batch script a Slurm
 * cell would be submitted with, or the Job and Service a Kubernetes cell would create. Paths
 * that exist only once a run has a directory are written as RUN_DIR.
 */
import { packageRoot } from '../../core/package-root.js';
import { buildLaunch } from '../launch-spec.js';
import type { MatrixPlan } from '../plan-compile.js';
import { configLevels, type Config } from '../space.js';
import { renderCellScript } from './slurm/sbatch-script.js';
import { cellManifests, manifestsYaml } from './kubernetes/manifests.js';

export const DRY_RUN_DIR = 'RUN_DIR';

/** The cell's script or manifests as text; undefined for local cells (their argv says it all). */
export function cellSubmission(
  plan: MatrixPlan,
  cellId: string,
  config: Config,
  cwd: string,
): string | undefined {
  const e = plan.executor;
  if (e.kind === 'local') return undefined;
  const spec = buildLaunch(plan, config);
  const levels = configLevels(plan.space, config);
  if (e.kind === 'slurm')
    return renderCellScript({
      cellId,
      runTag: 'RUNTAG',
      levels,
      argv: spec.argv,
      env: spec.env,
      cellDir: `${DRY_RUN_DIR}/cells/${cellId}`,
      runDir: DRY_RUN_DIR,
      faultlineRoot: packageRoot,
      cwd,
      gpus: spec.gpus,
      slurm: e,
    });
  return manifestsYaml(
    cellManifests({
      cellId,
      runTag: 'runtag',
      levels,
      argv: spec.argv,
      env: spec.env,
      gpus: spec.gpus,
      health: plan.launch.health,
      kubernetes: e,
    }),
  );
}
