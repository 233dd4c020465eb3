/**
 * faultline's byte-level vocabulary (ids 0–255 are the bytes, then BOS and EOS) written as a
 * GPT-2-style BPE vocabulary WITHOUT merges: each of the 256 tokens is the GPT-2 printable stand-in
 * for its byte, and with no merge rules llama.cpp's BPE never joins two of them, so tokenization
 * is byte-exact (research llama-cpp-engine.md §4.3). The `tokenizer.ggml.merges` key must exist,
 * even empty, or llama.cpp refuses to load the vocabulary.
 */
import { str, u32, bool, type GgufValue } from './format.js';

/** GPT-2's byte → printable-character table: printable Latin-1 bytes stand for themselves, the rest shift above 255 in byte order. */
export function gpt2ByteCharacters(): string[] {
  const printable = (b: number) =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const chars: string[] = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(printable(b) ? b : 256 + shifted++));
  return chars;
}

/** GGUF token types (llama.cpp's llama_token_type). */
const NORMAL = 1;
const CONTROL = 3;

export function byteVocabularyMetadata(bosTokenId: number, eosTokenId: number): [string, GgufValue][] {
  const tokens = [...gpt2ByteCharacters(), '<bos>', '<eos>'];
  const types = tokens.map((_, i) => (i < 256 ? NORMAL : CONTROL));
  return [
    ['tokenizer.ggml.model', str('gpt2')],
    // our server tokenizes and detokenizes bytes itself; llama.cpp's own detokenizer is never asked
    ['tokenizer.ggml.pre', str('default')],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: types }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: [] }],
    ['tokenizer.ggml.bos_token_id', u32(bosTokenId)],
    ['tokenizer.ggml.eos_token_id', u32(eosTokenId)],
    ['tokenizer.ggml.add_bos_token', bool(true)],
    ['tokenizer.ggml.add_eos_token', bool(false)],
  ];
}
