/**
 * systemd units (`llama-server.service`) and drop-ins (`ollama.service.d/override.conf`) → launches.
 * In `[Service]`: `Environment=` assignments (quoted or not, several per line) become the
 * environment that reaches the process, in order; `EnvironmentFile=` is not read (its variables are
 * unknown, a note says so); each `ExecStart=` is read as a command line — with its `-@:+!` prefixes
 * dropped, its backslash continuations joined, and `$VAR` / `${VAR}` taken from Environment= (what no
 * line sets stays a value known only at run time). systemd's command-line syntax is close enough to
 * the shell's for this: it is read by the shell reader, located on the unit's lines.
 * A drop-in with no ExecStart that sets OLLAMA_* variables configures the packaged ollama.service,
 * whose ExecStart is `ollama serve`: it is read as that launch, with a note.
 */
import { basename } from 'node:path';
import type { Located } from '../../core/located.js';
import { synthesized, toToken } from './arg-field.js';
import { newLaunch, type LaunchCommand } from './launch-command.js';
import { launchesFromShell, type GivenValues } from './shell.js';
import { fileLocator } from './text-position.js';

interface UnitLine {
  section: string;
  key: string;
  /** The value, continuations joined as written (the shell reader joins `\`+newline). */
  value: string;
  /** Offset of the value's first character in the file. */
  offset: number;
}

/** Key=value lines per section, with backslash continuations kept in the value text. */
function unitLines(text: string): UnitLine[] {
  const out: UnitLine[] = [];
  let section = '';
  let i = 0;
  while (i < text.length) {
    let end = text.indexOf('\n', i);
    if (end < 0) end = text.length;
    const line = text.slice(i, end);
    const trimmed = line.trim();
    if (trimmed.startsWith('[') && trimmed.endsWith(']')) section = trimmed.slice(1, -1);
    else if (trimmed && !trimmed.startsWith('#') && !trimmed.startsWith(';')) {
      const eq = line.indexOf('=');
      if (eq > 0) {
        const key = line.slice(0, eq).trim();
        let valueStart = eq + 1;
        while (line[valueStart] === ' ' || line[valueStart] === '\t') valueStart++;
        // continuation: a line ending in a backslash goes on on the next line
        let stop = end;
        while (/\\\r?$/.test(text.slice(i, stop)) && stop < text.length) {
          const next = text.indexOf('\n', stop + 1);
          stop = next < 0 ? text.length : next;
        }
        out.push({
          section,
          key,
          value: text.slice(i + valueStart, stop).replace(/\r$/, ''),
          offset: i + valueStart,
        });
        end = stop;
      }
    }
    i = end + 1;
  }
  return out;
}

/** `Environment=` words: `A=1 "B=two words" 'C=x'`, each with where it starts. */
function environmentAssignments(
  value: string,
  offset: number,
): { name: string; value: string; offset: number }[] {
  const out: { name: string; value: string; offset: number }[] = [];
  let i = 0;
  while (i < value.length) {
    while (value[i] === ' ' || value[i] === '\t') i++;
    if (i >= value.length) break;
    const start = i;
    let word = '';
    while (i < value.length && value[i] !== ' ' && value[i] !== '\t') {
      const q = value[i];
      if (q === '"' || q === "'") {
        const close = value.indexOf(q, i + 1);
        const stop = close < 0 ? value.length : close;
        word += value.slice(i + 1, stop).replace(/\\(["\\])/g, '$1');
        i = stop + 1;
      } else word += value[i++];
    }
    const eq = word.indexOf('=');
    if (eq > 0 && /^[A-Za-z_]\w*$/.test(word.slice(0, eq)))
      out.push({
        name: word.slice(0, eq),
        value: word.slice(eq + 1),
        offset: offset + start + (/^["']/.test(value[start]) ? 1 : 0),
      });
  }
  return out;
}

export function launchesFromSystemdUnit(
  file: string,
  text: string,
  baseDir: string,
  given?: GivenValues,
): LaunchCommand[] {
  const locate = fileLocator(file, text);
  const lines = unitLines(text).filter((l) => l.section === 'Service');
  const env = new Map<string, Located<string>>(given?.env ?? []);
  const notes: Located<string>[] = [];
  const launches: LaunchCommand[] = [];
  const source = { file, kind: 'systemd' as const, object: `${basename(file)} [Service]` };
  // systemd applies every Environment= line whatever its place, a later one winning: read them all first.
  for (const l of lines) {
    if (l.key === 'Environment') {
      for (const a of environmentAssignments(l.value, l.offset))
        env.set(a.name, { value: a.value, at: locate(a.offset) });
    } else if (l.key === 'EnvironmentFile') {
      const path = l.value.replace(/^-/, '').trim();
      notes.push({
        value: `EnvironmentFile=${path} is not read; the variables it sets are unknown here`,
        at: locate(l.offset),
      });
    }
  }
  let sawExec = false;
  for (const l of lines) {
    if (l.key !== 'ExecStart') continue;
    sawExec = true;
    const prefix = /^[-@:+!]*/.exec(l.value)?.[0].length ?? 0;
    const script = l.value.slice(prefix);
    if (!script.trim()) continue; // `ExecStart=` resets the list (drop-ins)
    const found = launchesFromShell(script, {
      source,
      baseDir,
      locate: (o) => locate(l.offset + prefix + o),
      unsetReason: `is not set by the unit's Environment= lines${notes.length ? ' (its EnvironmentFile= may set it)' : ''}`,
      env: new Map(env),
      ...(given ? { vars: given.vars } : {}),
    });
    for (const launch of found) launch.notes = [...notes, ...launch.notes];
    launches.push(...found);
  }
  if (!sawExec && [...env.keys()].some((k) => k.startsWith('OLLAMA_'))) {
    const header = /^\[Service\]/m.exec(text);
    const at = locate(header?.index ?? 0);
    const launch = newLaunch(
      source,
      [synthesized('ollama', at), synthesized('serve', at)].map(toToken),
      baseDir,
    );
    launch.env = env;
    launch.notes = [
      ...notes,
      {
        value:
          'a drop-in with no ExecStart that sets OLLAMA_* variables: read as the packaged ollama.service it configures, whose ExecStart is `ollama serve`',
        at,
      },
    ];
    launches.push(launch);
  }
  return launches;
}
