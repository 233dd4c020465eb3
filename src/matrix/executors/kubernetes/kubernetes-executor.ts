/** The Kubernetes executor (one Job + Service per cell). */
import { UserError } from '../../../core/errors.js';

export async function createKubernetesExecutor(_options: unknown): Promise<never> {
  throw new UserError('executor.kind kubernetes is not available in this build', {
    code: 'E_PLAN',
    hint: 'use kind: local or kind: slurm',
  });
}
