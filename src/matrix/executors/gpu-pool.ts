/**
 * The GPUs of one node, handed out as disjoint sets. A cell asks for as many GPUs as its levels
 * say (tensor parallel 2 → 2) and waits until that many are free; it gets the lowest-numbered
 * free ones. Waiters are served in order, and a later, smaller request may run ahead of one that
 * does not fit yet (backfill) — but only `maxSkips` times, after which the queue waits for the
 * head, so a large cell cannot be starved by a stream of small ones.
 */

/** Thrown by acquire() when its signal aborts while it waits. */
export class GpuWaitAborted extends Error {
  constructor() {
    super('aborted while waiting for GPUs');
    this.name = 'GpuWaitAborted';
  }
}

interface Waiter {
  count: number;
  /** Times a later request was served while this one waited at the head of the queue. */
  skips: number;
  grant(ids: string[]): void;
}

export class GpuPool {
  readonly ids: readonly string[];
  private readonly freeSet = new Set<string>();
  private readonly queue: Waiter[] = [];
  private readonly maxSkips: number;

  constructor(ids: readonly string[], options: { maxSkips?: number } = {}) {
    if (new Set(ids).size !== ids.length) throw new RangeError(`GPU ids repeat: ${ids.join(', ')}`);
    this.ids = [...ids];
    for (const id of ids) this.freeSet.add(id);
    this.maxSkips = options.maxSkips ?? Math.max(1, ids.length);
  }

  get capacity(): number {
    return this.ids.length;
  }

  /** Free GPUs, in pool order. */
  get free(): string[] {
    return this.ids.filter((id) => this.freeSet.has(id));
  }

  /** Requests waiting, in order. */
  get waiting(): number {
    return this.queue.length;
  }

  /** `count` GPUs no one else holds, once they are free. Rejects at once when the pool is too small. */
  acquire(count: number, signal?: AbortSignal): Promise<string[]> {
    if (!Number.isInteger(count) || count < 1)
      return Promise.reject(new RangeError(`a cell needs at least one GPU, not ${count}`));
    if (count > this.capacity)
      return Promise.reject(new RangeError(`${count} GPUs wanted, the pool has ${this.capacity}`));
    if (signal?.aborted) return Promise.reject(new GpuWaitAborted());
    return new Promise<string[]>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.queue.indexOf(waiter);
        if (i < 0) return;
        this.queue.splice(i, 1);
        reject(new GpuWaitAborted());
        this.dispatch(); // the head may have been what held back the others
      };
      const waiter: Waiter = {
        count,
        skips: 0,
        grant: (ids) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(ids);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.dispatch();
    });
  }

  /** Gives GPUs back; every id must be held (a double release is a bug and throws). */
  release(ids: readonly string[]): void {
    for (const id of ids) {
      if (!this.ids.includes(id)) throw new RangeError(`GPU ${id} is not in the pool`);
      if (this.freeSet.has(id)) throw new RangeError(`GPU ${id} released twice`);
    }
    for (const id of ids) this.freeSet.add(id);
    this.dispatch();
  }

  private take(count: number): string[] {
    const ids = this.free.slice(0, count);
    for (const id of ids) this.freeSet.delete(id);
    return ids;
  }

  private dispatch(): void {
    for (let i = 0; i < this.queue.length;) {
      const waiter = this.queue[i];
      if (waiter.count > this.freeSet.size) {
        // the head has been passed over enough: nothing more goes ahead of it
        if (i === 0 && waiter.skips >= this.maxSkips) return;
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      waiter.grant(this.take(waiter.count));
      if (i > 0 && ++this.queue[0].skips >= this.maxSkips) return;
    }
  }
}
