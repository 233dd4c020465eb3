/**
 * Suffix decoding (vLLM's `suffix` method, after Arctic Inference's SuffixDecoding, arXiv 2411.04975;
 * research attention-numerics.md §3.3), per request: a trie of every substring of the sequence
 * (prompt + accepted output) up to `maxTreeDepth` tokens long, each node counting how often its
 * substring occurred. To draft:
 *   1. match: the longest suffix of the sequence (≤ maxTreeDepth tokens) whose node has a
 *      continuation, i.e. that occurred before and was followed by something;
 *   2. expand greedily: follow the most frequent child; its probability estimate is
 *      child.count / Σ children counts; stop when the product of the estimates falls below
 *      `minTokenProb`, or at the draft limit. When the walk reaches the depth limit it re-matches the
 *      suffix of (sequence + draft so far) and goes on, so drafts can be longer than the tree is deep;
 *   3. the draft length is dynamic: ≤ min(num_speculative_tokens, max_spec_factor · match length,
 *      room left in the context).
 * Not implemented: Arctic's global tree over previous responses (suffix_decoding_max_cached_requests).
 */
import type { SuffixSettings } from './config.js';

interface Node {
  count: number;
  depth: number;
  children: Map<number, Node> | null;
}

const newNode = (depth: number): Node => ({ count: 0, depth, children: null });

export class SuffixTrie {
  private readonly root: Node = newNode(0);
  /** Nodes of the suffixes that end at the last appended token and are shorter than the depth limit. */
  private active: Node[] = [this.root];
  private readonly tokens: number[] = [];

  constructor(readonly maxDepth: number) {}

  get length(): number {
    return this.tokens.length;
  }

  append(token: number): void {
    this.tokens.push(token);
    const next: Node[] = [this.root];
    for (const node of this.active) {
      node.children ??= new Map();
      let child = node.children.get(token);
      if (!child) node.children.set(token, (child = newNode(node.depth + 1)));
      child.count++;
      if (child.depth < this.maxDepth) next.push(child);
    }
    this.active = next;
  }

  extend(tokens: readonly number[]): void {
    for (const t of tokens) this.append(t);
  }

  /** The node of `seq[from..]`, or null when that substring never occurred. */
  private walk(seq: readonly number[], from: number): Node | null {
    let node: Node | undefined = this.root;
    for (let i = from; i < seq.length && node; i++) node = node.children?.get(seq[i]);
    return node ?? null;
  }

  /** The longest suffix of `seq` (≤ maxDepth tokens) that has a continuation: its node and length. */
  private match(seq: readonly number[]): { node: Node; length: number } | null {
    for (let len = Math.min(this.maxDepth, seq.length); len >= 1; len--) {
      const node = this.walk(seq, seq.length - len);
      if (node?.children?.size) return { node, length: len };
    }
    return null;
  }

  /** Draft tokens following the sequence appended so far (at most `maxTokens`). */
  propose(maxTokens: number, s: Pick<SuffixSettings, 'maxSpecFactor' | 'minTokenProb'>): number[] {
    const first = this.match(this.tokens);
    if (!first || maxTokens <= 0) return [];
    const limit = Math.min(maxTokens, Math.floor(s.maxSpecFactor * first.length));
    const draft: number[] = [];
    let node: Node | null = first.node;
    let prob = 1;
    while (draft.length < limit) {
      if (!node?.children?.size) {
        const again = this.match([...this.tokens.slice(-this.maxDepth), ...draft]);
        if (!again) break;
        node = again.node;
      }
      let best: [number, Node] | null = null;
      let total = 0;
      for (const entry of node.children!) {
        total += entry[1].count;
        // most frequent; ties go to the lower token id, so drafting is deterministic
        if (!best || entry[1].count > best[1].count || (entry[1].count === best[1].count && entry[0] < best[0])) best = entry;
      }
      prob *= best![1].count / total;
      if (prob < s.minTokenProb) break;
      draft.push(best![0]);
      node = best![1];
    }
    return draft;
  }
}
