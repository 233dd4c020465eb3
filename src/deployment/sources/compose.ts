/**
 * Docker Compose services → launches. `entrypoint` replaces the image entrypoint and `command`
 * its CMD, each a list or a string (split with shell quoting, no shell). `environment` is a map
 * or a `KEY=VALUE` list. Compose interpolates `${VAR}` (and `${VAR:-default}` and friends) in
 * `image`, `entrypoint`, `command` and `environment` before anything runs, from the caller's
 * environment and the project's `.env`: here from the values faultline was given (`--set`, `--env`)
 * and the `.env` beside the compose file (compose-interpolate.ts). What neither holds stays as
 * written, with a note, and reads as a value known only at run time.
 */
import { isSeq, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { interpolateCompose, type ComposeValue } from './compose-interpolate.js';
import { readComposeDotenv } from './compose-dotenv.js';
import { launchesFromContainer, type EnvEntry } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import type { GivenValues } from './shell.js';
import { splitWords } from './split-words.js';
import { locOf, mapEntries, mapGet, mapPath, scalarField, scalarFields, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

const INTERPOLATION_NOTE = 'is interpolated by Compose from the environment or .env, not known here';

/** Where Compose takes `${VAR}` from: the values faultline was given, then the `.env` beside the file. */
export function composeLookup(composePath: string, given?: GivenValues): (name: string) => ComposeValue | undefined {
  const dotenv = readComposeDotenv(composePath);
  return (name) => {
    const g = given?.vars.get(name) ?? given?.env.get(name);
    if (g) return { value: g.value, from: 'the values given to faultline' };
    const d = dotenv.get(name);
    return d === undefined ? undefined : { value: d, from: '.env' };
  };
}

export function launchesFromCompose(y: YamlFile, doc: Node, baseDir: string, lookup: (name: string) => ComposeValue | undefined): LaunchCommand[] {
  return mapEntries(mapGet(doc, 'services')).flatMap((s) => {
    const svc = s.value;
    const notes: Located<string>[] = [];
    const interpolate = (f: ArgField): ArgField => {
      const r = interpolateCompose(f.text, lookup, INTERPOLATION_NOTE);
      const at = (offset: number) => f.charAt?.(offset) ?? f.at;
      for (const n of r.notes) notes.push({ value: n.value, ...(at(n.offset) ? { at: at(n.offset) } : {}) });
      if (r.text === f.text) return f;
      return { text: r.text, ...(f.at ? { at: f.at } : {}), charAt: (i) => at(r.offsets[Math.min(i, r.offsets.length - 1)] ?? 0) };
    };
    const words = (n: Node | undefined): ArgField[] | undefined => {
      if (isSeq(n)) return scalarFields(y, n).map(interpolate);
      const f = scalarField(y, n);
      return f ? splitWords(interpolate(f), INTERPOLATION_NOTE, notes) : undefined;
    };
    const command = words(mapGet(svc, 'entrypoint'));
    const args = words(mapGet(svc, 'command'));
    const envFile = mapGet(svc, 'env_file');
    if (envFile) notes.push({ value: 'env_file is not read; the variables it sets are unknown', at: locOf(y, envFile) });
    const devices = seqItems(mapPath(svc, 'deploy', 'resources', 'reservations', 'devices'));
    for (const d of devices) {
      const count = scalarText(y, mapGet(d, 'count')) ?? scalarText(y, mapGet(d, 'device_ids')) ?? 'some';
      notes.push({ value: `reserves ${count} GPU device(s) but does not name the GPU model`, at: locOf(y, d) });
    }
    const image = scalarField(y, mapGet(svc, 'image'));
    return launchesFromContainer({
      source: { file: y.file, kind: 'compose', object: `services.${s.key}` },
      baseDir,
      image: image && interpolate(image),
      command,
      args,
      env: composeEnv(y, mapGet(svc, 'environment')).map((e) => (e.value ? { ...e, value: { ...e.value, value: interpolate({ text: e.value.value, ...(e.value.at ? { at: e.value.at } : {}) }).text } } : e)),
      kubernetesVars: false,
      gpuHints: [],
      notes,
      unsetReason: "is not set in the service's environment or the script",
    });
  });
}

function composeEnv(y: YamlFile, env: Node | undefined): EnvEntry[] {
  if (isSeq(env))
    return seqItems(env).flatMap((item): EnvEntry[] => {
      const text = scalarText(y, item);
      if (!text) return [];
      const eq = text.indexOf('=');
      const at = locOf(y, item);
      if (eq < 0) return [{ name: text, from: 'the environment of whoever runs compose', at }];
      return [{ name: text.slice(0, eq), value: { value: text.slice(eq + 1), at }, at }];
    });
  return mapEntries(env).map((e) => {
    const at = locOf(y, e.keyNode);
    const value = scalarText(y, e.value);
    if (value === undefined) return { name: e.key, from: 'the environment of whoever runs compose', at };
    return { name: e.key, value: { value, at: locOf(y, e.value) ?? at }, at };
  });
}
