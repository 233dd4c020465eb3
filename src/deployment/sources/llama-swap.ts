/**
 * llama-swap configs (a proxy that starts one server per model on demand) → one launch per model:
 * `models.<id>.cmd` is the command line (llama-swap drops `#` comment lines and splits the rest
 * with shell quoting; here the shell word splitter, located inside the YAML scalar), `macros`
 * are substituted into it (`${name}`), and `models.<id>.env` ("NAME=value" strings) adds to the
 * environment. `${PORT}` is the port llama-swap picks when it starts the model: a value known only
 * at run time. The config also comes inside a Kubernetes ConfigMap (`data: {config.yaml: |…}`),
 * read as a YAML document located on the ConfigMap's lines.
 */
import { isMap, type Node } from 'yaml';
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { interpolateCompose } from './compose-interpolate.js';
import { findLaunch } from './launch-start.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { splitWords } from './split-words.js';
import {
  locOf,
  mapEntries,
  mapGet,
  parseYamlFile,
  scalarField,
  scalarText,
  seqItems,
  type YamlFile,
} from './yaml-positions.js';

const UNSET = 'is substituted by llama-swap when it starts the model (${PORT}, a macro) or is not known here';

/** A mapping with `models`, at least one of which has a `cmd`. */
export function isLlamaSwapConfig(node: Node): boolean {
  const models = mapGet(node, 'models');
  return (
    isMap(models) && mapEntries(models).some((e) => isMap(e.value) && mapGet(e.value, 'cmd') !== undefined)
  );
}

export function launchesFromLlamaSwap(y: YamlFile, doc: Node, baseDir: string, object = ''): LaunchCommand[] {
  const macros = new Map<string, string>();
  for (const e of mapEntries(mapGet(doc, 'macros'))) {
    const v = scalarText(y, e.value);
    if (v !== undefined) macros.set(e.key, v);
  }
  return mapEntries(mapGet(doc, 'models')).flatMap((m) => {
    const cmd = scalarField(y, mapGet(m.value, 'cmd'));
    if (!cmd) return [];
    const notes: Located<string>[] = [];
    // comment lines go before anything else, as llama-swap does
    const text = cmd.text
      .split('\n')
      .map((l) => (/^\s*#/.test(l) ? ' '.repeat(l.length) : l))
      .join('\n');
    const r = interpolateCompose(
      text,
      (name) => (macros.has(name) ? { value: macros.get(name) ?? '', from: 'macros' } : undefined),
      UNSET,
    );
    const at = (o: number) => cmd.charAt?.(o) ?? cmd.at;
    const field: ArgField = {
      text: r.text,
      ...(cmd.at ? { at: cmd.at } : {}),
      charAt: (i) => at(r.offsets[Math.min(i, r.offsets.length - 1)] ?? 0),
    };
    const words = splitWords(field, UNSET, notes);
    const match = findLaunch(words);
    if (!match?.tokens) return [];
    const source = { file: y.file, kind: 'llama-swap' as const, object: `${object}models.${m.key}` };
    const launch = newLaunch(source, match.tokens, baseDir);
    // llama-swap's env reaches the process it starts; a container (`docker run …`) gets only its own -e
    if (!match.envReplaced)
      for (const item of seqItems(mapGet(m.value, 'env'))) {
        const t = scalarText(y, item);
        const eq = t?.indexOf('=') ?? -1;
        const at = locOf(y, item);
        if (t && eq > 0) launch.env.set(t.slice(0, eq), { value: t.slice(eq + 1), ...(at ? { at } : {}) });
      }
    for (const [k, v] of match.env) launch.env.set(k, v);
    if (match.image) launch.image = match.image;
    launch.mounts = match.mounts;
    launch.notes = [...notes, ...match.notes];
    return [launch];
  });
}

/** A ConfigMap whose data holds a llama-swap config (`config.yaml: |`), read in place. */
export function launchesFromConfigMap(y: YamlFile, node: Node, baseDir: string): LaunchCommand[] {
  const name = scalarText(y, mapGet(mapGet(node, 'metadata'), 'name')) ?? '';
  return mapEntries(mapGet(node, 'data')).flatMap((e) => {
    if (!/\.ya?ml$/i.test(e.key)) return [];
    const f = scalarField(y, e.value);
    if (!f || !/\bmodels\s*:/.test(f.text)) return [];
    let inner: YamlFile;
    try {
      inner = parseYamlFile(
        y.file,
        f.text,
        (o) => f.charAt?.(o) ?? f.at ?? { file: y.file, line: 1, column: 1 },
      );
    } catch {
      return []; // not YAML after all: a ConfigMap may hold anything
    }
    return inner.docs.flatMap((d) =>
      d.contents && isLlamaSwapConfig(d.contents as Node)
        ? launchesFromLlamaSwap(inner, d.contents as Node, baseDir, `ConfigMap/${name} data.${e.key} `)
        : [],
    );
  });
}
