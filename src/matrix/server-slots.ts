/**
 * The executor's parallel slots, and the server each one keeps up between cells. A cell whose
 * launch (argv and environment) equals a server a slot already holds runs on that server — cells
 * that differ only in request-scope factors, or in levels that add nothing to the launch in their
 * context, share one launch — and waits for that slot rather than launching a twin elsewhere.
 * Otherwise it takes a free slot, stopping the idle server there first. `close` stops every
 * server left; the run calls it however it ends.
 */
import type { ServerHandle } from './executor.js';

interface Slot {
  busy: boolean;
  /** The launch key of the server the slot holds, if any. */
  key?: string;
  server?: ServerHandle;
  /** The cell whose launch started it. */
  launchedBy?: string;
}

export interface HeldServer {
  server: ServerHandle;
  launchedBy: string;
}

export class ServerSlots {
  private readonly slots: Slot[];
  private readonly waiting: { key: string; grant: (slot: number) => void }[] = [];
  /** Stops under way: close waits for them too (a cell's verdict can be out before its server is down). */
  private readonly stopping = new Set<Promise<void>>();

  constructor(count: number) {
    this.slots = Array.from({ length: Math.max(1, count) }, () => ({ busy: false }));
  }

  /** A slot for a cell with this launch key: the one holding its server, else a free one (lowest first). */
  acquire(key: string): Promise<number> {
    const slot = this.pick(key);
    if (slot !== undefined) {
      this.slots[slot].busy = true;
      return Promise.resolve(slot);
    }
    return new Promise((grant) => this.waiting.push({ key, grant }));
  }

  /** The server the slot holds for this key (null when it must launch one). */
  held(slot: number, key: string): HeldServer | null {
    const s = this.slots[slot];
    return s.server && s.key === key && s.launchedBy ? { server: s.server, launchedBy: s.launchedBy } : null;
  }

  /** Stops the slot's server (another launch takes its place, or it misbehaved). */
  async evict(slot: number): Promise<void> {
    const s = this.slots[slot];
    const server = s.server;
    s.server = undefined;
    s.key = undefined;
    s.launchedBy = undefined;
    if (!server) return;
    const stop = server.stop();
    this.stopping.add(stop);
    try {
      await stop;
    } finally {
      this.stopping.delete(stop);
    }
  }

  keep(slot: number, key: string, server: ServerHandle, launchedBy: string): void {
    Object.assign(this.slots[slot], { key, server, launchedBy });
  }

  /** Frees the slot (its server stays up) and hands it to the first waiter that can use it. */
  release(slot: number): void {
    this.slots[slot].busy = false;
    // a waiter for this slot's own server first, then one whose server no slot holds
    const same = this.waiting.findIndex((w) => w.key === this.slots[slot].key);
    const i = same >= 0 ? same : this.waiting.findIndex((w) => !this.holding(w.key));
    if (i < 0) return;
    const [w] = this.waiting.splice(i, 1);
    this.slots[slot].busy = true;
    w.grant(slot);
  }

  /** Stops every server the slots hold, and waits for the stops already under way. */
  async close(): Promise<void> {
    await Promise.all([...this.slots.map((_, i) => this.evict(i)), ...this.stopping]);
  }

  private holding(key: string): boolean {
    return this.slots.some((s) => s.key === key);
  }

  private pick(key: string): number | undefined {
    const mine = this.slots.findIndex((s) => s.key === key);
    if (mine >= 0) return this.slots[mine].busy ? undefined : mine;
    const empty = this.slots.findIndex((s) => !s.busy && !s.server);
    if (empty >= 0) return empty;
    const idle = this.slots.findIndex((s) => !s.busy);
    return idle >= 0 ? idle : undefined;
  }
}
