/**
 * The `.env` file Compose reads from the project directory (the compose file's directory) to
 * interpolate the file: `KEY=VALUE` lines, `export` allowed, `#` comments, values in single quotes
 * taken literally, in double quotes with `\n`-style escapes, unquoted ones up to a ` #` comment.
 * A missing or unreadable file is no variables, not an error: Compose runs without one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function readComposeDotenv(composePath: string): Map<string, string> {
  const path = join(dirname(composePath), '.env');
  // Most projects have none: asking first spares building an exception per compose file.
  if (!existsSync(path)) return new Map();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return new Map();
  }
  return parseDotenv(text);
}

export function parseDotenv(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, '');
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    vars.set(m[1], dotenvValue(m[2]));
  }
  return vars;
}

function dotenvValue(v: string): string {
  if (v.startsWith("'")) {
    const end = v.indexOf("'", 1);
    return end > 0 ? v.slice(1, end) : v.slice(1);
  }
  if (v.startsWith('"')) {
    let out = '';
    for (let k = 1; k < v.length; k++) {
      if (v[k] === '"') break;
      if (v[k] === '\\' && k + 1 < v.length) {
        const e = v[++k];
        out += e === 'n' ? '\n' : e === 't' ? '\t' : e;
      } else out += v[k];
    }
    return out;
  }
  return v.replace(/\s+#.*$/, '').trim();
}
