/** Which dump files a path names: a file, or every *.safetensors directly in a directory (sorted). */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';

export function listDumps(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`${path}: no such file or directory`, { code: 'E_USAGE', hint: 'pass a dump (.safetensors) or a directory of dumps' });
  }
  if (!st.isDirectory()) return [path];
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.safetensors'))
    .sort()
    .map((f) => join(path, f));
  if (!files.length)
    throw new UserError(`${path}: no .safetensors dumps in this directory`, {
      code: 'E_USAGE',
      hint: 'write vectors with `faultline kernel vectors --out DIR`, then run a kernel on them',
    });
  return files;
}
