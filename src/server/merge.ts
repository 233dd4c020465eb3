/**
 * Interleaves several async generators (one per prompt of a batched request) into one, tagging each
 * value with its source index, in the order values become available. Closing the merged generator
 * closes every source (so each aborts its engine work).
 */
export async function* mergeTagged<T>(sources: AsyncGenerator<T>[]): AsyncGenerator<{ index: number; value: T }> {
  if (sources.length === 1) {
    // the common case (one prompt): no race per value; for-await closes the source when we are closed
    for await (const value of sources[0]) yield { index: 0, value };
    return;
  }
  const pending = new Map<number, Promise<{ index: number; r: IteratorResult<T> }>>();
  const pull = (index: number) => pending.set(index, sources[index].next().then((r) => ({ index, r })));
  sources.forEach((_, i) => pull(i));
  try {
    while (pending.size) {
      const { index, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(index);
        continue;
      }
      pull(index);
      yield { index, value: r.value };
    }
  } finally {
    await Promise.allSettled(sources.map((s) => s.return(undefined)));
  }
}
