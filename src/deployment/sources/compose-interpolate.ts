/**
 * Docker Compose interpolation of one YAML value, done before Compose splits or runs anything:
 * `$$` is a literal `$`; `$VAR` and `${VAR}`; `${VAR:-default}` / `${VAR-default}` (default when
 * unset or empty / when unset); `${VAR:?message}` / `${VAR?message}` (Compose refuses to start);
 * `${VAR:+other}` / `${VAR+other}` (other when set). Defaults may hold further interpolations.
 * Values come from `lookup` (the variables faultline was given, then the project's `.env`); a
 * reference it cannot resolve stays as written, so the launch reader sees a value known only at run
 * time, and a note says why. Every output character keeps the offset of the text it came from.
 */

export interface Interpolated {
  text: string;
  /** Per output character, the offset in the input it came from (a substituted value: its `$`). */
  offsets: number[];
  notes: { value: string; offset: number }[];
}

export interface ComposeValue {
  value: string;
  /** Where it comes from, for the note that says it was used (".env", "--set"). */
  from: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const OPERATORS = [':-', '-', ':?', '?', ':+', '+'] as const;

export function interpolateCompose(text: string, lookup: (name: string) => ComposeValue | undefined, unsetReason: string): Interpolated {
  const out: Interpolated = { text: '', offsets: [], notes: [] };
  const emit = (s: string, offset: number | ((k: number) => number)) => {
    for (let k = 0; k < s.length; k++) {
      out.text += s[k];
      out.offsets.push(typeof offset === 'number' ? offset : offset(k));
    }
  };
  const used = (name: string, v: ComposeValue, at: number) => out.notes.push({ value: `\${${name}} is "${v.value}" (from ${v.from})`, offset: at });
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== '$') {
      emit(c, i++);
      continue;
    }
    const start = i;
    if (text[i + 1] === '$') {
      emit('$', start);
      i += 2;
      continue;
    }
    if (text[i + 1] !== '{') {
      const name = NAME.exec(text.slice(i + 1))?.[0];
      if (!name) {
        emit('$', i++);
        continue;
      }
      i += 1 + name.length;
      const v = lookup(name);
      if (v) {
        used(name, v, start);
        emit(v.value, start);
      } else {
        out.notes.push({ value: `$${name} ${unsetReason}`, offset: start });
        emit(text.slice(start, i), (k) => start + k);
      }
      continue;
    }
    const close = matchingBrace(text, i + 1);
    if (close < 0) {
      // not an interpolation Compose accepts; leave the rest as written
      emit(text.slice(i), (k) => i + k);
      break;
    }
    const inner = text.slice(i + 2, close);
    i = close + 1;
    braced(inner, start, text.slice(start, i), lookup, unsetReason, out, emit, used);
  }
  return out;
}

/** The index of the `}` that closes the `{` at `open`, counting nested `${…}`; -1 if none. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let k = open; k < text.length; k++) {
    if (text[k] === '{' && text[k - 1] === '$') depth++;
    else if (text[k] === '}' && --depth === 0) return k;
  }
  return -1;
}

function braced(
  inner: string,
  start: number,
  written: string,
  lookup: (name: string) => ComposeValue | undefined,
  unsetReason: string,
  out: Interpolated,
  emit: (s: string, offset: number | ((k: number) => number)) => void,
  used: (name: string, v: ComposeValue, at: number) => void,
): void {
  const keep = () => emit(written, (k) => start + k);
  const name = NAME.exec(inner)?.[0];
  if (!name) return keep();
  const rest = inner.slice(name.length);
  const op = OPERATORS.find((o) => rest.startsWith(o));
  if (rest && !op) return keep();
  const arg = op ? rest.slice(op.length) : '';
  const v = lookup(name);
  if (v) used(name, v, start);
  const set = v !== undefined && (!op?.startsWith(':') || v.value !== '');
  const nested = (s: string) => {
    const r = interpolateCompose(s, lookup, unsetReason);
    out.notes.push(...r.notes.map((n) => ({ ...n, offset: start })));
    emit(r.text, start);
  };
  if (!op) return v ? emit(v.value, start) : (out.notes.push({ value: `\${${name}} ${unsetReason}`, offset: start }), keep());
  if (op.endsWith('-')) {
    if (set) return emit(v!.value, start);
    if (!v) out.notes.push({ value: `\${${name}} ${unsetReason}; used its default "${arg}" (the caller may override it)`, offset: start });
    return nested(arg);
  }
  if (op.endsWith('?')) {
    if (set) return emit(v!.value, start);
    out.notes.push({ value: `\${${name}} ${unsetReason}, and Compose refuses to start without it${arg ? ` ("${arg}")` : ''}`, offset: start });
    return emit(`\${${name}}`, start);
  }
  // `+`: the alternative when set, nothing when not; unknown here, so it stays as written
  if (set) return nested(arg);
  if (v) return;
  out.notes.push({ value: `\${${name}} ${unsetReason}, so whether "${arg}" is used is not known`, offset: start });
  keep();
}
