/**
 * A JSON flag value with run-time parts (`{"method": "eagle3", "model": "$DRAFT", "num_speculative_tokens": 3}`):
 * only the fields that hold a run-time part are unknown; the others are as known as in any JSON value.
 * Each run-time part is swapped for a placeholder string (quoted when the JSON text leaves it bare,
 * `"n": $N`), the text is parsed, and every field whose value holds a placeholder gets the part back
 * as written and is listed as a run-time field. A text that is not JSON even then stays wholly unknown.
 */
import type { RuntimeValue } from './vllm-parse-types.js';
import { pythonJsonLoads } from './vllm-values.js';

/** Shell and Compose expansions, Kubernetes `$(VAR)`, and template placeholders, as sources keep them. */
const RUNTIME_PART = /\$\{[^}]*\}|\$\((?:[^()]|\([^()]*\))*\)|\$[A-Za-z_]\w*|\$[0-9@*]|\{\{[^}]*\}\}/g;
const PLACEHOLDER = /\uE000rt(\d+)\uE000/g;

export interface JsonWithRuntimeFields {
  value: Record<string, unknown>;
  /** Dotted sub-key → the run-time value that field holds. */
  runtimeKeys: Record<string, RuntimeValue>;
}

export function jsonWithRuntimeFields(
  text: string,
  runtime: RuntimeValue,
): JsonWithRuntimeFields | undefined {
  const parts: string[] = [];
  let inString = false;
  let out = '';
  let k = 0;
  while (k < text.length) {
    const c = text[k];
    if (inString && c === '\\') {
      out += text.slice(k, k + 2);
      k += 2;
      continue;
    }
    if (c === '"') inString = !inString;
    RUNTIME_PART.lastIndex = k;
    const m = c === '$' || c === '{' ? RUNTIME_PART.exec(text) : null;
    if (m && m.index === k) {
      const mark = `\uE000rt${parts.length}\uE000`;
      parts.push(m[0]);
      out += inString ? mark : `"${mark}"`;
      k += m[0].length;
      continue;
    }
    out += c;
    k++;
  }
  if (parts.length === 0) return undefined;
  const parsed = pythonJsonLoads(out);
  if (
    'error' in parsed ||
    parsed.value === null ||
    typeof parsed.value !== 'object' ||
    Array.isArray(parsed.value)
  )
    return undefined;
  const runtimeKeys: Record<string, RuntimeValue> = {};
  const restore = (v: unknown, path: string): unknown => {
    if (typeof v === 'string' && v.includes('\uE000')) {
      const written = v.replace(PLACEHOLDER, (_, i: string) => parts[Number(i)]);
      const names = [...written.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((x) => x[1]);
      runtimeKeys[path] = {
        text: written,
        why: `${written} is known only when the launch runs (${runtime.why})`,
        names: [...new Set(names)],
      };
      return written;
    }
    if (Array.isArray(v)) return v.map((x, i) => restore(x, `${path}.${i}`));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v).map(([key, x]) => [key, restore(x, path ? `${path}.${key}` : key)]),
      );
    return v;
  };
  const value = restore(parsed.value, '') as Record<string, unknown>;
  return { value, runtimeKeys };
}
