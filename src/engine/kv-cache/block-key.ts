/**
 * The prefix-cache key of a full KV block: a 64-bit hash (two 32-bit FNV-1a lanes with different
 * offsets, as hex) of the key of the block before it and the block's token ids, so a key stands for
 * the whole prefix up to the block's end — vLLM's chained block hash (vllm/v1/core/kv_cache_utils.py
 * hash_block_tokens), nano-vllm's compute_hash(token_ids, prefix). Two different prefixes share a key
 * only on a 64-bit collision, the same risk vLLM takes with its hashes.
 */

/** The key before the first block. */
export const ROOT_KEY = '';

const FNV_PRIME = 0x01000193;

function mix(h: number, x: number): number {
  for (let b = 0; b < 4; b++) {
    h ^= (x >>> (8 * b)) & 0xff;
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

export function blockKey(parent: string, tokens: readonly number[]): string {
  let a = 0x811c9dc5,
    b = 0x050c5d1f;
  for (let i = 0; i < parent.length; i++) {
    a = mix(a, parent.charCodeAt(i));
    b = mix(b, parent.charCodeAt(i) ^ 0x5bd1e995);
  }
  a = mix(a, tokens.length);
  b = mix(b, tokens.length ^ 0x27d4eb2f);
  for (const t of tokens) {
    a = mix(a, t);
    b = mix(b, t ^ 0x165667b1);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
