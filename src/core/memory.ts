/**
 * What core keeps in memory for one running bridge (caches, the mail outbox), held by its context
 * instead of at module level: two bridges in one process (tests, the bench) share nothing, and a
 * bridge's state goes when its context does. Each owner module names its slot once; only it reads it.
 */

/** A named place in a CoreMemory for values of type T (the type is carried, never stored). */
export interface MemorySlot<T> {
  readonly name: string;
  readonly of?: T;
}

export function memorySlot<T>(name: string): MemorySlot<T> {
  return { name };
}

export class CoreMemory {
  private readonly values = new Map<MemorySlot<unknown>, unknown>();

  /** The value in `slot`, made by `make` on first use. */
  get<T>(slot: MemorySlot<T>, make: () => T): T {
    if (!this.values.has(slot)) this.values.set(slot, make());
    return this.values.get(slot) as T;
  }
}
