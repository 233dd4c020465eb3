/**
 * LaunchCommand → Deployment for an SGLang launch: SGLang's argv emulation with the flag table of
 * the launch's release (--sglang-version, else the tag of an lmsysorg/sglang image), the same model,
 * GPU and location rules as the vLLM path (assemble.ts), then SGLang's rewrites and auto-selection
 * once the GPU and model facts are known.
 */
import type { SourceLocation } from '../../core/errors.js';
import type { Located } from '../../core/located.js';
import type { Deployment } from '../deployment.js';
import { applySglangRewrites, parseSglangLaunch } from '../engines/sglang/deployment.js';
import { parseVersion } from '../versions.js';
import {
  addHardwareFacts,
  checkedVersion,
  gpuOf,
  located,
  modelFacts,
  type AssembleOptions,
} from './assemble.js';
import type { LaunchCommand } from './launch-command.js';
import { modelFamilyOf } from '../model-family.js';

/** lmsysorg/sglang:v0.5.6.post2-cu129-amd64 and the like: the release is the tag's first part. */
const SGLANG_IMAGE = /^(?:docker\.io\/)?lmsysorg\/sglang:v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?:-[\w.-]+)?$/;

export function assembleSglangDeployment(
  launch: LaunchCommand,
  opts: AssembleOptions,
  relocate: (at: SourceLocation | undefined) => SourceLocation | undefined,
): Deployment {
  const notes: Located<string>[] = [...launch.notes];
  const version = sglangVersionOf(launch, opts, notes);
  const parsed = parseSglangLaunch(launch.tokens, version?.value, opts.allowUnknownFlags ?? false);
  notes.push(...parsed.notes.map((n) => ({ value: n.value, ...located(relocate(n.at)) })));
  const model = parsed.model && { value: parsed.model.value, ...located(relocate(parsed.model.at)) };
  const d: Deployment = {
    source: launch.source,
    engine: 'sglang',
    ...located(relocate(parsed.at) ?? launch.tokens[0]?.at),
    argv: launch.tokens.map((t) => ({ text: t.text, ...located(relocate(t.at)) })),
    ...(model ? { model } : {}),
    args: new Map(),
    env: launch.env,
    versions: version ? { sglang: version } : {},
    notes,
    flagProblems: parsed.flagProblems.map((p) => ({ ...p, ...located(relocate(p.at)) })),
    flagTable: parsed.flagTable,
  };
  const facts = modelFacts(launch, d, opts);
  if (facts) d.modelFacts = facts;
  else {
    const family = modelFamilyOf(d.model);
    if (family) d.modelFamily = family;
  }
  if (opts.flashinferVersion)
    d.versions.flashinfer = { value: checkedVersion(opts.flashinferVersion, '--flashinfer-version') };
  const gpu = gpuOf(launch, opts, notes);
  if (gpu) d.gpu = gpu;
  // SGLang's defaults depend on the platform, and the platform on the backend as written: both before the rewrites.
  d.args = parsed.written;
  addHardwareFacts(d, launch, opts, []);
  applySglangRewrites(d, parsed, relocate);
  return d;
}

function sglangVersionOf(
  launch: LaunchCommand,
  opts: AssembleOptions,
  notes: Located<string>[],
): Located<string> | undefined {
  if (opts.sglangVersion) return { value: checkedVersion(opts.sglangVersion, '--sglang-version') };
  const tag = launch.image && SGLANG_IMAGE.exec(launch.image.value)?.[1];
  if (tag && parseVersion(tag) && launch.image) {
    notes.push({
      value: `SGLang version ${tag} taken from the image tag ${launch.image.value}`,
      ...located(launch.image.at),
    });
    return { value: tag, ...located(launch.image.at) };
  }
  return undefined;
}
