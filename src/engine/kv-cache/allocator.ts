/**
 * Block allocator for the paged KV cache (the shape of nano-vllm's block manager, without prefix
 * caching): a fixed budget of block ids, handed out lowest-never-used first, freed ids reused
 * most-recently-freed first. Storage grows with the high-water mark, so an idle budget costs nothing.
 */
import { KvCacheFullError } from './cache.js';

export class BlockAllocator {
  private readonly freed: number[] = [];
  private highWater = 0; // ids [0, highWater) have been handed out at least once

  constructor(readonly numBlocks: number) {
    if (!Number.isInteger(numBlocks) || numBlocks < 1) throw new RangeError(`numBlocks must be a positive integer, got ${numBlocks}`);
  }

  get numFree(): number {
    return this.freed.length + (this.numBlocks - this.highWater);
  }

  /** Blocks ever handed out; storage must hold this many. */
  get highWaterMark(): number {
    return this.highWater;
  }

  allocate(): number {
    const reused = this.freed.pop();
    if (reused !== undefined) return reused;
    if (this.highWater >= this.numBlocks)
      throw new KvCacheFullError(`KV cache is full: all ${this.numBlocks} blocks are in use`);
    return this.highWater++;
  }

  free(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.highWater) throw new RangeError(`block ${id} was never allocated`);
    this.freed.push(id);
  }
}
