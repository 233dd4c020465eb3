import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeTagged } from './merge.js';

/** A source that yields `values` and records whether it was closed. */
function source(values: string[], closed: { done: boolean }) {
  return (async function* () {
    try {
      for (const v of values) {
        await new Promise((r) => setImmediate(r));
        yield v;
      }
    } finally {
      closed.done = true;
    }
  })();
}

for (const n of [1, 3])
  test(`${n} source(s): every value, tagged with its source; closing the merged stream closes every source`, async () => {
    const flags = Array.from({ length: n }, () => ({ done: false }));
    const all: string[] = [];
    for await (const { index, value } of mergeTagged(flags.map((f, i) => source([`${i}a`, `${i}b`], f)))) all.push(`${index}:${value}`);
    assert.deepEqual(all.sort(), flags.flatMap((_, i) => [`${i}:${i}a`, `${i}:${i}b`]).sort());
    const early = Array.from({ length: n }, () => ({ done: false }));
    for await (const _ of mergeTagged(early.map((f, i) => source([`${i}a`, `${i}b`, `${i}c`], f)))) break;
    assert.ok(early.every((f) => f.done), 'sources closed');
  });
