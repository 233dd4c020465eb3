/**
 * Python value conversions that vLLM's argument parser relies on, reproduced so a value means in
 * faultline what it means in vLLM: `int()`, `float()`, `json.loads()`, vLLM's `human_readable_int`,
 * the dotted-key value rule (JSON, else human-readable int, else the raw string), YAML `str()`,
 * and pydantic's lax bool coercion for config fields.
 */

/** Python `int(s)`: optional sign, ASCII digits with single underscores between them, outer whitespace. */
export function pythonInt(text: string): number | undefined {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[2].replace(/_/g, ''));
  return m[1] === '-' ? -n : n;
}

/** Python `float(s)`: decimal/exponent forms, `inf`/`infinity`/`nan` in any case, underscores between digits. */
export function pythonFloat(text: string): number | undefined {
  const t = text.trim();
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  const digits = String.raw`\d+(?:_\d+)*`;
  const re = new RegExp(
    String.raw`^[+-]?(?:${digits}(?:\.(?:${digits})?)?|\.${digits})(?:[eE][+-]?${digits})?$`,
  );
  if (!re.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

const DECIMAL_SUFFIX: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const BINARY_SUFFIX: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/**
 * vLLM's `human_readable_int`: `1k` → 1000, `1K` → 1024, `25.6k` → 25600 (decimal suffixes go
 * through float multiplication then truncation, as in Python); a decimal with a binary suffix is
 * an error; anything else must be a plain Python int. Returns an error string instead of throwing.
 */
export function humanReadableInt(text: string): { value: number } | { error: string } {
  const v = text.trim();
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT])$/.exec(v);
  if (m) {
    const [, num, suffix] = m;
    if (suffix in DECIMAL_SUFFIX) return { value: Math.trunc(Number(num) * DECIMAL_SUFFIX[suffix]) };
    if (num.includes('.')) {
      return {
        error: `Decimals are not allowed with binary suffixes like ${suffix}. Did you mean ${num}${suffix.toLowerCase()}?`,
      };
    }
    return { value: Number(num) * BINARY_SUFFIX[suffix] };
  }
  const n = pythonInt(v);
  return n === undefined ? { error: `invalid int value: '${text}'` } : { value: n };
}

/**
 * Python `json.loads` for the cases that differ from JSON.parse at the top level (`NaN`,
 * `Infinity`, `-Infinity` are accepted by Python). Nested NaN/Infinity are not supported: such
 * text is reported as invalid, which only affects values vLLM itself would reject as configs.
 */
export function pythonJsonLoads(text: string): { value: unknown } | { error: string } {
  const t = text.trim();
  if (t === 'NaN') return { value: NaN };
  if (t === 'Infinity') return { value: Infinity };
  if (t === '-Infinity') return { value: -Infinity };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * The value of a dotted sub-key (`--attention-config.use_trtllm_attention=false`): vLLM tries
 * `json.loads`, then `human_readable_int`, else keeps the raw string. So `true` → true, `3` → 3,
 * `1k` → 1000, but `True` stays the string "True".
 */
export function dottedValue(text: string): unknown {
  const json = pythonJsonLoads(text);
  if ('value' in json) return json.value;
  const hr = humanReadableInt(text);
  if ('value' in hr) return hr.value;
  return text;
}

/**
 * Python `str(value)` for YAML scalars turned into argv by vLLM's config loader. `floatSource`
 * tells an integral float written with a dot or exponent (`2.0` → "2.0", as Python prints it).
 */
export function pythonStr(value: unknown, writtenAsFloat = false): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (value === Infinity) return 'inf';
    if (value === -Infinity) return '-inf';
    if (Number.isInteger(value) && writtenAsFloat && Math.abs(value) < 1e16) return `${value}.0`;
    return String(value);
  }
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/**
 * pydantic's lax bool coercion, which is how vLLM reads a config field such as
 * `attention_config.disable_flashinfer_q_quantization` whatever the JSON/dotted value was:
 * booleans; 0/1; strings (case-insensitive) 0/1, true/false, t/f, yes/no, y/n, on/off.
 * Returns undefined for anything pydantic would reject.
 */
export function configBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['1', 'true', 't', 'yes', 'y', 'on'].includes(v)) return true;
    if (['0', 'false', 'f', 'no', 'n', 'off'].includes(v)) return false;
  }
  return undefined;
}

/** Plain JSON object (not array, not null). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
