/**
 * Where each character of a YAML scalar's value was written. The yaml library gives a node's
 * range but not a per-character map, and a `sh -c "…"` string or a folded `command: >` must
 * have its inner words located. We re-decode the scalar from source (flow folding, escapes,
 * block indentation and chomping) and accept the map only when our decoding equals the
 * library's value; otherwise the caller falls back to the scalar's start.
 */
import type { Scalar } from 'yaml';

interface Decoded {
  chars: string[];
  offsets: number[];
}

export function scalarCharOffsets(src: string, node: Scalar): number[] | undefined {
  if (typeof node.value !== 'string' || !node.range) return undefined;
  const [start, end] = node.range;
  let d: Decoded | undefined;
  switch (node.type) {
    case 'PLAIN':
      d = decodeFlow(src, start, end, 'plain');
      break;
    case 'QUOTE_SINGLE':
      d = decodeFlow(src, start + 1, end - 1, 'single');
      break;
    case 'QUOTE_DOUBLE':
      d = decodeFlow(src, start + 1, end - 1, 'double');
      break;
    case 'BLOCK_LITERAL':
    case 'BLOCK_FOLDED':
      d = decodeBlock(src, start, end, node.type === 'BLOCK_FOLDED');
      break;
  }
  if (!d || d.chars.join('') !== node.value) return undefined;
  return d.offsets;
}

const DOUBLE_ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Flow scalars: line breaks fold to a space (or to n−1 newlines across n breaks), edges trimmed. */
function decodeFlow(src: string, s: number, e: number, style: 'plain' | 'single' | 'double'): Decoded {
  const out: Decoded = { chars: [], offsets: [] };
  let trailingBlanks = 0; // literal blanks at the end of out, dropped if a line break follows
  const emit = (c: string, at: number, blank: boolean) => {
    out.chars.push(c);
    out.offsets.push(at);
    trailingBlanks = blank ? trailingBlanks + 1 : 0;
  };
  let i = s;
  while (i < e) {
    const c = src[i];
    if (c === '\n' || (c === '\r' && src[i + 1] === '\n')) {
      out.chars.splice(out.chars.length - trailingBlanks);
      out.offsets.splice(out.offsets.length - trailingBlanks);
      let j = i;
      let breaks = -1;
      while (j < e && (src[j] === '\n' || src[j] === '\r' || src[j] === ' ' || src[j] === '\t')) {
        if (src[j] === '\n') breaks++;
        j++;
      }
      if (breaks === 0) emit(' ', i, false);
      else for (let k = 0; k < breaks; k++) emit('\n', i, false);
      trailingBlanks = 0;
      i = j;
      continue;
    }
    if (style === 'double' && c === '\\') {
      const n = src[i + 1];
      if (n === '\n' || n === '\r') {
        let j = i + 1;
        while (j < e && (src[j] === '\n' || src[j] === '\r' || src[j] === ' ' || src[j] === '\t')) j++;
        trailingBlanks = 0;
        i = j;
        continue;
      }
      const hex = HEX_ESCAPES[n];
      if (hex) {
        emit(String.fromCodePoint(parseInt(src.slice(i + 2, i + 2 + hex), 16)), i, false);
        i += 2 + hex;
      } else {
        emit(DOUBLE_ESCAPES[n] ?? n, i, false);
        i += 2;
      }
      continue;
    }
    if (style === 'single' && c === "'" && src[i + 1] === "'") {
      emit("'", i, false);
      i += 2;
      continue;
    }
    emit(c, i, c === ' ' || c === '\t');
    i++;
  }
  if (style === 'plain') {
    out.chars.splice(out.chars.length - trailingBlanks);
    out.offsets.splice(out.offsets.length - trailingBlanks);
  }
  return out;
}

/** Block scalars `|` and `>` with auto-detected indentation (explicit indentation → no map). */
function decodeBlock(src: string, start: number, end: number, folded: boolean): Decoded | undefined {
  const headerEnd = src.indexOf('\n', start);
  if (headerEnd < 0) return { chars: [], offsets: [] };
  const header = src.slice(start + 1, headerEnd).replace(/\s+#.*$/, '').trim();
  if (/\d/.test(header)) return undefined;
  const chomp = header.includes('-') ? 'strip' : header.includes('+') ? 'keep' : 'clip';
  const lines: { text: string; at: number }[] = [];
  for (let i = headerEnd + 1; i < end; ) {
    let j = src.indexOf('\n', i);
    if (j < 0 || j > end) j = end;
    lines.push({ text: src.slice(i, j).replace(/\r$/, ''), at: i });
    i = j + 1;
  }
  // Indentation counts spaces only (a tab after them is content); spaces-only lines no longer
  // than the indentation are empty lines.
  const spacesOnly = (t: string) => /^ *$/.test(t);
  const first = lines.find((l) => !spacesOnly(l.text));
  if (!first) return { chars: [], offsets: [] };
  const indent = /^ */.exec(first.text)?.[0].length ?? 0;
  const content = lines.map((l) => ({ text: spacesOnly(l.text) && l.text.length <= indent ? '' : l.text.slice(indent), at: l.at + indent }));
  let last = content.length - 1;
  while (last >= 0 && content[last].text === '') last--;
  const out: Decoded = { chars: [], offsets: [] };
  const push = (s: string, at: number) => {
    for (let k = 0; k < s.length; k++) {
      out.chars.push(s[k]);
      out.offsets.push(at + k);
    }
  };
  // Line breaks of the value stand for empty lines or line ends, not for characters after `at`.
  const breaks = (n: number, at: number) => {
    for (let k = 0; k < n; k++) {
      out.chars.push('\n');
      out.offsets.push(at);
    }
  };
  let previous: { text: string } | undefined;
  let pendingBreaks = 0;
  for (let k = 0; k <= last; k++) {
    const line = content[k];
    if (line.text === '') {
      pendingBreaks++;
      continue;
    }
    if (previous) {
      const moreIndented = (t: string) => t.startsWith(' ') || t.startsWith('\t');
      const fold = folded && pendingBreaks === 0 && !moreIndented(previous.text) && !moreIndented(line.text);
      if (fold) push(' ', line.at);
      else {
        breaks(folded && !moreIndented(previous.text) && !moreIndented(line.text) ? pendingBreaks : pendingBreaks + 1, line.at);
      }
    } else {
      breaks(pendingBreaks, line.at);
    }
    pendingBreaks = 0;
    push(line.text, line.at);
    previous = line;
  }
  const lastAt = content[last]?.at ?? start;
  if (chomp === 'clip' && last >= 0) breaks(1, lastAt);
  if (chomp === 'keep') breaks(content.length - last, lastAt);
  return out;
}
