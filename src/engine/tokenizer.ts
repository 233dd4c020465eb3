/**
 * Byte-level tokenizer: ids 0–255 are the UTF-8 bytes themselves, 256 = BOS, 257 = EOS
 * (docs/model-format.md). Behind an interface so a server or a probe can swap in another.
 */

export interface Tokenizer {
  readonly vocabSize: number;
  readonly bosId: number;
  readonly eosId: number;
  /** Text → ids; with `addBos` the BOS id comes first (positions start at 0 on BOS). */
  encode(text: string, options?: { addBos?: boolean }): number[];
  /** Ids → text; special ids are dropped, invalid UTF-8 becomes U+FFFD. */
  decode(ids: readonly number[]): string;
  /**
   * Streaming decode of one more id: returns the text that is now complete. Bytes of a
   * multi-byte UTF-8 character that has not finished yet are held in `state` until it does.
   */
  decodeToken(id: number, state: StreamDecodeState): string;
  /** A printable name for one id, e.g. for logprob tables: "a", "\\n", "<0xE2>", "<bos>". */
  tokenText(id: number): string;
}

/** Carry-over between decodeToken calls (the bytes of an unfinished UTF-8 character). */
export interface StreamDecodeState {
  pending: number[];
}

export function newStreamDecodeState(): StreamDecodeState {
  return { pending: [] };
}

/** How many bytes the UTF-8 sequence starting with this lead byte has (1 for invalid leads). */
function utf8Length(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc2) return 2;
  return 1;
}

export function createByteTokenizer(bosId = 256, eosId = 257): Tokenizer {
  const utf8 = new TextDecoder('utf-8', { fatal: false });
  const isByte = (id: number) => Number.isInteger(id) && id >= 0 && id < 256;
  return {
    vocabSize: Math.max(bosId, eosId) + 1,
    bosId,
    eosId,
    encode(text, options = {}) {
      const ids = Array.from(new TextEncoder().encode(text));
      return options.addBos ? [bosId, ...ids] : ids;
    },
    decode(ids) {
      return utf8.decode(Uint8Array.from(ids.filter(isByte)));
    },
    decodeToken(id, state) {
      if (!isByte(id)) return '';
      const p = state.pending;
      let broken = '';
      if (p.length > 0 && (id & 0xc0) !== 0x80) {
        // the held character never finished: emit it as replacement text, then start over
        broken = utf8.decode(Uint8Array.from(p));
        p.length = 0;
      }
      p.push(id);
      if (p.length < utf8Length(p[0])) return broken;
      const text = utf8.decode(Uint8Array.from(p));
      p.length = 0;
      return broken + text;
    },
    tokenText(id) {
      if (id === bosId) return '<bos>';
      if (id === eosId) return '<eos>';
      if (!isByte(id)) return `<id ${id}>`;
      if (id >= 0x20 && id < 0x7f) return String.fromCharCode(id);
      if (id === 0x0a) return '\\n';
      if (id === 0x09) return '\\t';
      return `<0x${id.toString(16).toUpperCase().padStart(2, '0')}>`;
    },
  };
}
