/**
 * Docker Compose services → launches. `entrypoint` replaces the image entrypoint and `command`
 * its CMD, each a list or a string (split with shell quoting, no shell). `environment` is a map
 * or a `KEY=VALUE` list. Compose interpolates `${VAR}` from the caller's environment and `.env`
 * before anything runs; those values are unknown here and stay as written, with a note.
 */
import { isSeq, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { launchesFromContainer, type EnvEntry } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import { splitWords } from './split-words.js';
import { locOf, mapEntries, mapGet, mapPath, scalarField, scalarFields, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

const INTERPOLATION_NOTE = 'is interpolated by Compose from the environment or .env, not known here';

export function launchesFromCompose(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  return mapEntries(mapGet(doc, 'services')).flatMap((s) => {
    const svc = s.value;
    const notes: Located<string>[] = [];
    const words = (n: Node | undefined): ArgField[] | undefined => {
      if (isSeq(n)) return scalarFields(y, n);
      const f = scalarField(y, n);
      return f ? splitWords(f, INTERPOLATION_NOTE, notes) : undefined;
    };
    const command = words(mapGet(svc, 'entrypoint'));
    const args = words(mapGet(svc, 'command'));
    for (const w of [...(command ?? []), ...(args ?? [])])
      if (/\$\{?[A-Za-z_]/.test(w.text) && isSeq(mapGet(svc, 'command')))
        notes.push({ value: `${w.text} ${INTERPOLATION_NOTE}`, at: w.at });
    const envFile = mapGet(svc, 'env_file');
    if (envFile) notes.push({ value: 'env_file is not read; the variables it sets are unknown', at: locOf(y, envFile) });
    const devices = seqItems(mapPath(svc, 'deploy', 'resources', 'reservations', 'devices'));
    for (const d of devices) {
      const count = scalarText(y, mapGet(d, 'count')) ?? scalarText(y, mapGet(d, 'device_ids')) ?? 'some';
      notes.push({ value: `reserves ${count} GPU device(s) but does not name the GPU model`, at: locOf(y, d) });
    }
    return launchesFromContainer({
      source: { file: y.file, kind: 'compose', object: `services.${s.key}` },
      baseDir,
      image: scalarField(y, mapGet(svc, 'image')),
      command,
      args,
      env: composeEnv(y, mapGet(svc, 'environment')),
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
