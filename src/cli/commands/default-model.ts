/**
 * The model `engine generate` and `engine serve` use without --model: models/tiny-swa in the working
 * directory (a checkout), else the one shipped in the faultline package (an install).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../../core/package-root.js';

export function defaultModelDir(cwd: string): string | undefined {
  return [resolve(cwd, 'models/tiny-swa'), join(packageRoot, 'models/tiny-swa')].find((p) => existsSync(join(p, 'config.json')));
}
