/**
 * Finds a model's config.json the way the Hugging Face hub cache lays it out:
 *   $HF_HUB_CACHE (or $HF_HOME/hub, or ~/.cache/huggingface/hub)/models--ORG--NAME/snapshots/REV/config.json
 * REV is the requested revision when given (a commit or a ref under refs/), else refs/main, else the
 * only snapshot. A local directory with a config.json is used as is.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  const xdg = env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), '.cache');
  return join(xdg, 'huggingface', 'hub');
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export interface ConfigLocation {
  path?: string;
  /** How it was found, or why not. */
  how: string;
}

export function findModelConfig(
  model: string,
  opts: { env: NodeJS.ProcessEnv; cwd: string; revision?: string },
): ConfigLocation {
  const local = isAbsolute(model) ? model : resolve(opts.cwd, model);
  if (isDir(local)) {
    const p = join(local, 'config.json');
    return existsSync(p)
      ? { path: p, how: `local directory ${local}` }
      : { how: `${local} has no config.json` };
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(model))
    return { how: `"${model}" is neither a local directory nor a hub model id` };
  const hub = hubCacheDir(opts.env);
  const repo = join(hub, `models--${model.replace('/', '--')}`);
  const snapshots = join(repo, 'snapshots');
  if (!isDir(snapshots)) return { how: `${model} is not in the Hugging Face cache (${hub})` };
  const refFile = (ref: string) => join(repo, 'refs', ref);
  let rev: string | undefined;
  const wanted = opts.revision;
  if (wanted && isDir(join(snapshots, wanted))) rev = wanted;
  else if (wanted && existsSync(refFile(wanted))) rev = readFileSync(refFile(wanted), 'utf8').trim();
  else if (wanted) return { how: `revision ${wanted} of ${model} is not in the Hugging Face cache` };
  else if (existsSync(refFile('main'))) rev = readFileSync(refFile('main'), 'utf8').trim();
  else {
    const revs = readdirSync(snapshots).filter((r) => isDir(join(snapshots, r)));
    if (revs.length === 1) rev = revs[0];
    else return { how: `${model} has ${revs.length} cached snapshots and no refs/main to choose one` };
  }
  const p = join(snapshots, rev, 'config.json');
  return existsSync(p)
    ? { path: p, how: `Hugging Face cache, ${model}@${rev.slice(0, 12)}` }
    : { how: `${p} does not exist` };
}
