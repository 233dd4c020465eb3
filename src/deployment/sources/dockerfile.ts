/**
 * Dockerfiles (and Containerfiles) → the launch their final stage's container runs. Instructions are
 * read as the builder reads them: the `# escape=` directive, continuation lines (comment lines inside
 * them dropped), heredocs skipped. Per stage: `FROM image [AS name]` (a later stage built FROM an
 * earlier one inherits its ENV, ENTRYPOINT and CMD), `ARG name[=default]` and `ENV` (both forms,
 * `K=V …` and the legacy `K V`) with `$VAR` / `${VAR}` / `${VAR:-d}` / `${VAR:+x}` substituted from
 * what is declared before — an ARG without a default is a build-time value, kept as written and
 * read as known only at run time. `ENTRYPOINT` and `CMD` in exec form (a JSON array, not
 * substituted) or shell form (`/bin/sh -c TEXT`); setting ENTRYPOINT drops the CMD inherited from the
 * base. The final stage then runs as a container does (container.ts): ENTRYPOINT ++ CMD, or, when the
 * file sets neither, the base image's own entrypoint (llama.cpp's and Ollama's images, vLLM's).
 */
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';
import { launchesFromContainer, type EnvEntry } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import { fileLocator } from './text-position.js';

interface Instruction {
  keyword: string;
  /** The arguments, continuations joined. */
  text: string;
  /** File offset of each character of `text`. */
  offsets: number[];
}

/** The instructions of a Dockerfile, in order. */
export function dockerInstructions(src: string): Instruction[] {
  const escape = /^#\s*escape\s*=\s*`/im.test(src.split('\n').slice(0, 5).join('\n')) ? '`' : '\\';
  const out: Instruction[] = [];
  const lines: { text: string; start: number }[] = [];
  let p = 0;
  for (const l of src.split('\n')) {
    lines.push({ text: l.replace(/\r$/, ''), start: p });
    p += l.length + 1;
  }
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const t = l.text.trimStart();
    if (!t || t.startsWith('#')) continue;
    const kw = /^([A-Za-z]+)(\s+|$)/.exec(t);
    if (!kw) continue;
    const keyword = kw[1].toUpperCase();
    let text = '';
    const offsets: number[] = [];
    let from = l.start + (l.text.length - t.length) + kw[0].length;
    let line = l.text.slice(from - l.start);
    for (;;) {
      const continued = line.trimEnd().endsWith(escape);
      const body = continued ? line.trimEnd().slice(0, -1) : line;
      for (let k = 0; k < body.length; k++) {
        text += body[k];
        offsets.push(from + k);
      }
      if (!continued || i + 1 >= lines.length) break;
      // the next line that is no comment continues the instruction
      do i++;
      while (i < lines.length && /^\s*#/.test(lines[i].text));
      if (i >= lines.length) break;
      from = lines[i].start;
      line = lines[i].text;
    }
    // heredocs (`RUN <<EOF … EOF`): their bodies are no instructions
    const heredoc = /<<-?\s*["']?([A-Za-z_]\w*)["']?/.exec(text);
    if (heredoc && (keyword === 'RUN' || keyword === 'COPY')) {
      while (i + 1 < lines.length && lines[i + 1].text.trim() !== heredoc[1]) i++;
      i++;
    }
    out.push({ keyword, text, offsets });
  }
  return out;
}

interface Stage {
  name?: string;
  base: string;
  baseAt?: Located<string>['at'];
  env: EnvEntry[];
  vars: Map<string, string | undefined>;
  entrypoint?: ArgField[];
  cmd?: ArgField[];
  /** ENTRYPOINT was set in this stage (the inherited CMD is dropped). */
  entrypointSet: boolean;
}

export function launchesFromDockerfile(file: string, text: string, baseDir: string): LaunchCommand[] {
  const locate = fileLocator(file, text);
  const instructions = dockerInstructions(text);
  const globalArgs = new Map<string, string | undefined>();
  const stages: Stage[] = [];
  const notes: Located<string>[] = [];
  for (const ins of instructions) {
    const stage = stages[stages.length - 1];
    const field = (t: string, offs: number[]): ArgField => ({
      text: t,
      at: locate(offs[0] ?? ins.offsets[0] ?? 0),
      charAt: (k) => locate(offs[Math.min(k, offs.length - 1)] ?? ins.offsets[0] ?? 0),
    });
    if (ins.keyword === 'FROM') {
      const words = ins.text
        .trim()
        .split(/\s+/)
        .filter((w) => !w.startsWith('--'));
      const image = substitute(words[0] ?? '', globalArgs).text;
      const asAt = words.findIndex((w) => w.toUpperCase() === 'AS');
      const parent = stages.find((s) => s.name && s.name === image.toLowerCase());
      const start = ins.text.indexOf(words[0] ?? '');
      stages.push({
        ...(asAt >= 0 && words[asAt + 1] ? { name: words[asAt + 1].toLowerCase() } : {}),
        base: parent ? parent.base : image,
        baseAt: parent ? parent.baseAt : locate(ins.offsets[Math.max(0, start)] ?? 0),
        env: parent ? [...parent.env] : [],
        vars: new Map(parent ? [...parent.vars] : []),
        ...(parent?.entrypoint ? { entrypoint: parent.entrypoint } : {}),
        ...(parent?.cmd ? { cmd: parent.cmd } : {}),
        entrypointSet: parent?.entrypointSet ?? false,
      });
      continue;
    }
    if (!stage) {
      if (ins.keyword === 'ARG') for (const a of argDecls(ins.text)) globalArgs.set(a.name, a.value);
      continue;
    }
    if (ins.keyword === 'ARG') {
      for (const a of argDecls(ins.text)) {
        const inherited = a.value === undefined && globalArgs.has(a.name) ? globalArgs.get(a.name) : a.value;
        stage.vars.set(a.name, inherited === undefined ? undefined : substitute(inherited, stage.vars).text);
      }
    } else if (ins.keyword === 'ENV') {
      for (const e of envAssignments(ins)) {
        const value = substitute(e.value, stage.vars);
        stage.vars.set(e.name, value.text);
        const at = locate(ins.offsets[e.offset] ?? ins.offsets[0] ?? 0);
        stage.env = stage.env.filter((x) => x.name !== e.name);
        stage.env.push({ name: e.name, value: { value: value.text, at }, at });
      }
    } else if (ins.keyword === 'ENTRYPOINT' || ins.keyword === 'CMD') {
      const words = execForm(ins.text, ins.offsets, field) ?? [
        field('/bin/sh', []),
        field('-c', []),
        field(ins.text.trim(), ins.offsets.slice(ins.text.length - ins.text.trimStart().length)),
      ];
      if (ins.keyword === 'ENTRYPOINT') {
        stage.entrypoint = words;
        stage.entrypointSet = true;
        delete stage.cmd;
      } else stage.cmd = words;
    }
  }
  const last = stages[stages.length - 1];
  if (!last) return [];
  for (const [name, v] of last.vars)
    if (v === undefined && last.env.some((e) => e.value?.value.includes(name)))
      notes.push({
        value: `ARG ${name} has no default: it is set when the image is built (docker build --build-arg ${name}=…), not known here`,
        ...(last.baseAt ? { at: last.baseAt } : {}),
      });
  return launchesFromContainer({
    source: {
      file,
      kind: 'dockerfile',
      object: `${last.name ? `stage ${last.name}` : 'final stage'} FROM ${last.base}`,
    },
    baseDir,
    image: { text: last.base, ...(last.baseAt ? { at: last.baseAt } : {}) },
    ...(last.entrypoint ? { command: last.entrypoint } : {}),
    ...(last.cmd ? { args: last.cmd } : {}),
    env: last.env,
    kubernetesVars: false,
    gpuHints: [],
    notes,
    unsetReason: "is not set by the Dockerfile's ENV or ARG lines",
  });
}

function argDecls(text: string): { name: string; value?: string }[] {
  return text
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => {
      const eq = w.indexOf('=');
      return eq < 0 ? { name: w } : { name: w.slice(0, eq), value: unquote(w.slice(eq + 1)) };
    });
}

function unquote(v: string): string {
  return v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0] ? v.slice(1, -1) : v;
}

/** `ENV A=1 B="two words"` or the legacy `ENV A one value`: name, value, and the value's offset in the text. */
function envAssignments(ins: Instruction): { name: string; value: string; offset: number }[] {
  const t = ins.text;
  const lead = t.length - t.trimStart().length;
  const legacy = /^([A-Za-z_][\w.-]*)\s+(?!\S*=)([\s\S]*)$/.exec(t.trimStart());
  if (legacy && !/^[A-Za-z_][\w.-]*=/.test(t.trimStart()))
    return [{ name: legacy[1], value: legacy[2].trim(), offset: lead + legacy[0].length - legacy[2].length }];
  const out: { name: string; value: string; offset: number }[] = [];
  let i = lead;
  while (i < t.length) {
    while (i < t.length && /\s/.test(t[i])) i++;
    const m = /^([A-Za-z_][\w.-]*)=/.exec(t.slice(i));
    if (!m) break;
    const start = i;
    i += m[0].length;
    let value = '';
    while (i < t.length && !/\s/.test(t[i])) {
      const q = t[i];
      if (q === '"' || q === "'") {
        let k = i + 1;
        while (k < t.length && t[k] !== q) {
          if (q === '"' && t[k] === '\\' && k + 1 < t.length) k++;
          value += t[k++];
        }
        i = k + 1;
      } else if (q === '\\' && i + 1 < t.length) {
        value += t[i + 1];
        i += 2;
      } else value += t[i++];
    }
    out.push({ name: m[1], value, offset: start });
  }
  return out;
}

/** Docker's variable substitution: `$V`, `${V}`, `${V:-word}`, `${V:+word}`, `\$`; unknown or unset stays as written. */
function substitute(text: string, vars: Map<string, string | undefined>): { text: string } {
  const out = text.replace(
    /\\\$|\$\{([A-Za-z_]\w*)(?::([-+])([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (
      m,
      braced: string | undefined,
      op: string | undefined,
      word: string | undefined,
      bare: string | undefined,
    ) => {
      if (m === '\\$') return '$';
      const name = braced ?? bare ?? '';
      const v = vars.get(name);
      if (op === '-') return v === undefined || v === '' ? (word ?? '') : v;
      if (op === '+') return v !== undefined && v !== '' ? (word ?? '') : '';
      return v === undefined ? m : v;
    },
  );
  return { text: out };
}

/** A JSON array of strings (the exec form), each string located character by character. */
function execForm(
  text: string,
  offsets: number[],
  field: (t: string, offs: number[]) => ArgField,
): ArgField[] | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  ws();
  if (text[i] !== '[') return undefined;
  i++;
  const words: ArgField[] = [];
  for (;;) {
    ws();
    if (text[i] === ']') {
      i++;
      break;
    }
    if (text[i] !== '"') return undefined;
    i++;
    let s = '';
    const offs: number[] = [];
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\' && i + 1 < text.length) {
        const e = text[i + 1];
        const map: Record<string, string> = {
          n: '\n',
          t: '\t',
          r: '\r',
          b: '\b',
          f: '\f',
          '"': '"',
          '\\': '\\',
          '/': '/',
        };
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          s += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          offs.push(offsets[i]);
          i += 6;
          continue;
        }
        if (!(e in map)) return undefined;
        s += map[e];
        offs.push(offsets[i]);
        i += 2;
        continue;
      }
      s += text[i];
      offs.push(offsets[i]);
      i++;
    }
    if (text[i] !== '"') return undefined;
    i++;
    words.push(field(s, offs.length ? offs : [offsets[i - 1]]));
    ws();
    if (text[i] === ',') i++;
    else if (text[i] !== ']') return undefined;
  }
  ws();
  return i >= text.length ? words : undefined;
}
