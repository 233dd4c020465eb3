/**
 * The SGLang side of the launch finder: where an SGLang server starts inside a command's words,
 * and what a container on an SGLang image runs when the manifest gives only arguments.
 *   `sglang serve …`, `python[3] -m sglang.launch_server …` (engines/sglang/command.ts says how
 *   many words start the server).
 *   lmsysorg/sglang images have no server entrypoint (CMD /bin/bash, docker/Dockerfile @ 14f81a67):
 *   arguments alone do not start SGLang; faultline reads them as `python3 -m sglang.launch_server
 *   ARGS`, the evident intent, and says that the container as written would not start it.
 */
import { SGLANG_MODULES } from '../engines/sglang/command.js';
import { synthesized, toToken, type ArgField } from './arg-field.js';
import type { ArgToken } from './launch-command.js';
import type { LaunchMatch } from './launch-start.js';

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** `sglang serve …` starting at word i. */
export function matchSglangServe(words: ArgField[], i: number): ArgToken[] | undefined {
  return basename(words[i].text) === 'sglang' && words[i + 1]?.text === 'serve'
    ? words.slice(i).map(toToken)
    : undefined;
}

export function isSglangModule(name: string): boolean {
  return SGLANG_MODULES.includes(name);
}

export function looksLikeSglangImage(image: string): boolean {
  return /sglang/i.test(image);
}

export function sglangEntrypointForm(image: ArgField | undefined, args: ArgField[], m: LaunchMatch): boolean {
  if (args.length === 0 || !args[0].text.startsWith('--')) return false;
  const at = image?.at ?? args[0].at;
  m.tokens = [
    synthesized('python3', at),
    synthesized('-m', at),
    synthesized('sglang.launch_server', at),
    ...args,
  ].map(toToken);
  m.notes.push({
    value:
      'no command given: SGLang images have no server entrypoint (their CMD is /bin/bash), so as written the container runs the first argument as a program and SGLang never starts; read as `python3 -m sglang.launch_server` with these arguments',
    at,
  });
  return true;
}
