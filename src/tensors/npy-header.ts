/**
 * The header of a .npy file: magic "\x93NUMPY", version (1.0, 2.0 or 3.0), a little-endian header
 * length (u16 for v1, u32 for v2/v3), then a Python dict literal such as
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }` padded with spaces and a newline.
 * v1/v2 headers are latin-1, v3 UTF-8. Only the literal syntax numpy writes is accepted: strings,
 * True/False, integers and tuples of integers; structured dtypes (a list as descr) are refused.
 */
import { UserError } from '../core/errors.js';
import type { DType } from './dtypes.js';

export const MAX_NPY_HEADER_BYTES = 1 << 20;
const CODE = 'E_NPY';

export interface NpyHeader {
  version: 1 | 2 | 3;
  dataStart: number;
  dtype: DType;
  bigEndian: boolean;
  fortranOrder: boolean;
  shape: number[];
}

export function npyFail(name: string, message: string, hint?: string): never {
  throw new UserError(`${name}: ${message}`, {
    code: CODE,
    hint: hint ?? 'the file is not a valid .npy file (truncated, corrupted, or another format)',
  });
}

const DESCR_TO_DTYPE: Record<string, DType> = {
  f2: 'F16',
  f4: 'F32',
  f8: 'F64',
  i1: 'I8',
  i2: 'I16',
  i4: 'I32',
  i8: 'I64',
  u1: 'U8',
  u2: 'U16',
  u4: 'U32',
  u8: 'U64',
  b1: 'BOOL',
};

type PyValue = string | boolean | number | number[];

/** A recursive-descent parser for the dict literal, over the decoded header text. */
function parseDictLiteral(name: string, text: string): Map<string, PyValue> {
  let i = 0;
  const bad = (what: string): never =>
    npyFail(name, `header dict: ${what} at character ${i + 1} of ${JSON.stringify(text.slice(0, 120))}`);
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const expect = (c: string) => {
    ws();
    if (text[i] !== c) bad(`expected '${c}'`);
    i++;
  };
  const str = (): string => {
    ws();
    const q = text[i];
    if (q !== "'" && q !== '"') bad('expected a string');
    let out = '';
    i++;
    while (i < text.length && text[i] !== q) {
      if (text[i] === '\\') i++; // numpy never writes escapes in these fields; take the next char literally
      out += text[i++];
    }
    if (i >= text.length) bad('unterminated string');
    i++;
    return out;
  };
  const int = (): number => {
    ws();
    const m = /^\d+L?/.exec(text.slice(i, i + 40));
    if (!m) bad('expected a non-negative integer');
    i += m![0].length;
    const v = Number(m![0].replace('L', ''));
    if (!Number.isSafeInteger(v)) bad(`integer ${m![0]} is too large`);
    return v;
  };
  const tuple = (): number[] => {
    expect('(');
    const out: number[] = [];
    ws();
    while (text[i] !== ')') {
      out.push(int());
      ws();
      if (text[i] === ',') i++;
      else if (text[i] !== ')') bad("expected ',' or ')' in the shape tuple");
      ws();
    }
    i++;
    return out;
  };
  const value = (): PyValue => {
    ws();
    if (text.startsWith('True', i)) return ((i += 4), true);
    if (text.startsWith('False', i)) return ((i += 5), false);
    if (text[i] === '(') return tuple();
    if (text[i] === "'" || text[i] === '"') return str();
    if (text[i] === '[')
      npyFail(name, 'structured dtypes (a list as descr) are not supported', 'save a plain numeric array');
    return int();
  };
  const dict = new Map<string, PyValue>();
  expect('{');
  ws();
  while (text[i] !== '}') {
    const key = str();
    expect(':');
    if (dict.has(key)) bad(`key '${key}' repeated`);
    dict.set(key, value());
    ws();
    if (text[i] === ',') i++;
    else if (text[i] !== '}') bad("expected ',' or '}'");
    ws();
  }
  i++;
  ws();
  if (i !== text.length) bad('unexpected text after the dict');
  return dict;
}

function parseDescr(name: string, descr: PyValue | undefined): { dtype: DType; bigEndian: boolean } {
  if (typeof descr !== 'string')
    return npyFail(name, `'descr' must be a string, got ${JSON.stringify(descr)}`);
  const m = /^([<>|=])([a-zA-Z]\d+)$/.exec(descr);
  const dtype = m ? DESCR_TO_DTYPE[m[2]] : undefined;
  if (!m || !dtype || !Object.hasOwn(DESCR_TO_DTYPE, m[2])) {
    return npyFail(
      name,
      `unsupported dtype '${descr}'`,
      `faultline reads ${Object.keys(DESCR_TO_DTYPE).join(', ')} (either byte order)`,
    );
  }
  if (m[1] === '=')
    return npyFail(
      name,
      `dtype '${descr}' has native byte order, which a file cannot state`,
      "numpy writes '<' or '>'",
    );
  if (m[1] === '|' && !['i1', 'u1', 'b1'].includes(m[2]))
    return npyFail(name, `dtype '${descr}' needs a byte order ('<' or '>')`);
  return { dtype, bigEndian: m[1] === '>' };
}

/** Parses and validates the header from the file's first bytes (`prefix` holds at least 12 bytes or the whole file). */
export function parseNpyHeader(
  name: string,
  readPrefix: (length: number) => Uint8Array,
  size: number,
): NpyHeader {
  if (size < 10) npyFail(name, `only ${size} bytes long; too short for a .npy header`);
  const lead = readPrefix(Math.min(size, 12));
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (!magic.every((b, k) => lead[k] === b)) npyFail(name, 'does not start with the .npy magic "\\x93NUMPY"');
  const major = lead[6];
  if (major !== 1 && major !== 2 && major !== 3)
    npyFail(
      name,
      `unsupported .npy format version ${major}.${lead[7]}`,
      'faultline reads versions 1.0, 2.0 and 3.0',
    );
  const view = new DataView(lead.buffer, lead.byteOffset, lead.length);
  const lengthBytes = major === 1 ? 2 : 4;
  if (lead.length < 8 + lengthBytes) npyFail(name, 'ends inside the header length field');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = 8 + lengthBytes;
  if (headerLength > MAX_NPY_HEADER_BYTES)
    npyFail(name, `header length ${headerLength} exceeds the ${MAX_NPY_HEADER_BYTES}-byte cap`);
  if (headerStart + headerLength > size)
    npyFail(
      name,
      `header length ${headerLength} is larger than the rest of the file (${size - headerStart} bytes)`,
    );
  const raw = readPrefix(headerStart + headerLength).subarray(headerStart);
  let text: string;
  try {
    text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: true }).decode(raw);
  } catch {
    return npyFail(name, 'header is not valid UTF-8');
  }
  const dict = parseDictLiteral(name, text);
  const keys = [...dict.keys()].sort().join(',');
  if (keys !== 'descr,fortran_order,shape')
    npyFail(name, `header keys must be descr, fortran_order and shape; found ${keys || 'none'}`);
  const { dtype, bigEndian } = parseDescr(name, dict.get('descr'));
  const fortranOrder = dict.get('fortran_order');
  if (typeof fortranOrder !== 'boolean') npyFail(name, "'fortran_order' must be True or False");
  const shape = dict.get('shape');
  if (!Array.isArray(shape)) npyFail(name, "'shape' must be a tuple of integers");
  return {
    version: major,
    dataStart: headerStart + headerLength,
    dtype,
    bigEndian,
    fortranOrder,
    shape: shape as number[],
  };
}
