import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockManager } from './block-manager.js';
import type { StateFaultName } from '../state-faults.js';

const P = 4;
const seq = (start: number, n: number) => Array.from({ length: n }, (_, i) => start + i);
const manager = (numBlocks: number, faults: StateFaultName[] = []) => new BlockManager(numBlocks, P, true, new Set(faults));

test('prefix caching: full committed blocks are shared by reference, at most all but the last token, freed on the last release', () => {
  const m = manager(8);
  const a = seq(0, 10); // 2 full blocks + 2
  assert.equal(m.attachPrefix(1, a), 0);
  assert.ok(m.allocateSlots(1, a));
  assert.equal(m.table(1).length, 3);
  // a prompt equal to the first 8 tokens reuses only 1 block: its last token must be computed
  assert.equal(m.cachedPrefixLength(seq(0, 8)), 4);
  assert.equal(m.attachPrefix(2, seq(0, 9)), 8);
  assert.deepEqual(m.table(2), m.table(1).slice(0, 2));
  assert.equal(m.refCount(m.table(1)[0]), 2);
  m.free(1);
  assert.equal(m.refCount(m.table(2)[0]), 1, 'still held by sequence 2');
  assert.equal(m.numFree, 8 - 2);
  m.free(2);
  assert.equal(m.numFree, 8);
  assert.equal(m.cachedPrefixLength(seq(0, 9)), 8, 'freed blocks keep their keys until evicted');
  // drafts are not registered: a block holding one is never reused
  const d = manager(4);
  assert.ok(d.allocateSlots(1, seq(0, 8), 6));
  assert.equal(d.cachedPrefixLength(seq(0, 9)), 4);
});

test('a different token anywhere before a block changes its key (chained hashes)', () => {
  const m = manager(8);
  m.allocateSlots(1, seq(0, 12));
  const other = [...seq(0, 12)];
  other[1] = 99;
  assert.equal(m.cachedPrefixLength([...other, 0]), 0);
});

test('when out of never-used and plain free blocks, the least recently freed cached block is evicted (its key dropped)', () => {
  const m = manager(4);
  m.allocateSlots(1, seq(0, 8)); // blocks 0, 1 registered
  m.allocateSlots(2, seq(100, 8)); // blocks 2, 3 registered
  m.free(1); // frees 1 then 0 (tail first)
  m.free(2); // frees 3 then 2
  assert.equal(m.numFree, 4);
  m.allocateSlots(3, seq(200, 4)); // no never-used block left: evicts block 1, the first freed
  assert.deepEqual(m.table(3), [1]);
  assert.equal(m.cachedPrefixLength(seq(0, 9)), 4, 'prefix 0… lost its second block, keeps its first');
  assert.equal(m.allocateSlots(4, seq(300, 20)), false, 'not enough blocks: nothing changes');
  assert.equal(m.numFree, 3);
});

test('fault stale-prefix-hash: after eviction the old prefix still resolves to the block, now in another sequence', () => {
  for (const faults of [[], ['stale-prefix-hash']] as StateFaultName[][]) {
    const m = manager(2, faults);
    m.allocateSlots(1, seq(0, 4));
    m.free(1);
    m.allocateSlots(2, seq(50, 8)); // takes the never-used block, then evicts block 0
    assert.deepEqual(m.table(2), [1, 0]);
    m.free(2);
    const hit = m.attachPrefix(3, seq(0, 5));
    if (faults.length) {
      assert.equal(hit, 4, 'a hit on the stale key');
      assert.deepEqual(m.table(3), [0], 'block 0 now holds tokens 54…57, not 0…3');
    } else assert.equal(hit, 0);
  }
});

test('fault abort-frees-shared-blocks: an aborted sequence frees a block its neighbour still holds; the next allocation takes it', () => {
  for (const faults of [[], ['abort-frees-shared-blocks']] as StateFaultName[][]) {
    const m = manager(4, faults);
    m.allocateSlots(1, seq(0, 9));
    m.attachPrefix(2, seq(0, 9));
    m.allocateSlots(2, [8]);
    const sharedBlocks = m.table(2).slice(0, 2);
    m.free(1, true);
    m.allocateSlots(3, seq(500, 8));
    const overlap = m.table(3).filter((b) => sharedBlocks.includes(b));
    if (faults.length) assert.ok(overlap.length > 0, 'sequence 3 was handed a block sequence 2 still reads');
    else {
      assert.deepEqual(overlap, []);
      assert.equal(m.refCount(sharedBlocks[0]), 1);
    }
    m.free(2);
    m.free(3);
    // a plain (not aborted) free is exact even with the fault on
    m.allocateSlots(4, seq(0, 9));
    m.attachPrefix(5, seq(0, 9));
    m.free(4);
    assert.equal(m.refCount(m.table(5)[0]), 1);
  }
});

test('truncate refuses to cut into a block shared with another sequence', () => {
  const m = manager(4);
  m.allocateSlots(1, seq(0, 9));
  m.attachPrefix(2, seq(0, 9));
  assert.throws(() => m.truncate(2, 6), /shares/);
  m.truncate(2, 4);
  assert.equal(m.table(2).length, 1);
});
