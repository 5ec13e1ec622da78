/**
 * What this instance last wrote at a record it appends to by compare-and-set (a conversation's
 * transcript and its lead facts): the next append offers it as the expected value instead of reading
 * the record first (one store read less per append, two per answer).
 *
 * Never trusted as the record itself: it is only a guess at what the store holds, and the
 * compare-and-set checks it. When the guess is stale (another instance appended meanwhile, an agent's
 * reply went in, the record expired, or its tenant left and took it), the write is refused and the
 * writer reads the record and tries again, exactly as without the memo. So a stale entry costs one
 * refused write, never a lost or resurrected turn. Entries are bounded (oldest dropped first).
 */
import type { Json } from '../../state/store';
import { type ScopedKey, type Tenant, tenantPrefix } from '../../state/tenant-store';
import { type CoreMemory, memorySlot } from '../memory';

/**
 * Several times the conversations one instance answers at once (a guess is worth keeping from a
 * question's turn to its answer's): a transcript is up to 20 turns, so the bound keeps the memo to a
 * few MB at most. A conversation whose guess went is read, as without the memo.
 */
const MAX_ENTRIES = 256;

/** A guess at a record: its value, or `undefined` when it is known to be absent (a conversation made just now). */
export interface Guess {
  value: Json | undefined;
}

export class LastWritten {
  private readonly values = new Map<string, Guess>();

  constructor(private readonly max = MAX_ENTRIES) {}

  /** What this instance last wrote at the tenant's `key` (or knows absent); undefined when it knows nothing. */
  guess(tenant: Tenant, key: ScopedKey): Guess | undefined {
    return this.values.get(LastWritten.id(tenant, key));
  }

  /** Notes a write that succeeded, or `undefined`: a record this instance knows absent (the newest is kept). */
  note(tenant: Tenant, key: ScopedKey, value: Json | undefined): void {
    const id = LastWritten.id(tenant, key);
    this.values.delete(id);
    this.values.set(id, { value });
    if (this.values.size > this.max) {
      const oldest = this.values.keys().next().value;
      if (oldest !== undefined) this.values.delete(oldest);
    }
  }

  /** Drops a guess that proved wrong (the writer reads the record instead). */
  forget(tenant: Tenant, key: ScopedKey): void {
    this.values.delete(LastWritten.id(tenant, key));
  }

  get size(): number {
    return this.values.size;
  }

  private static id(tenant: Tenant, key: ScopedKey): string {
    return `${tenantPrefix(tenant)}${key}`;
  }
}

const SLOT = memorySlot<LastWritten>('appended records: last written here');

/** The bridge's memo (one per context: two bridges in one process share nothing). */
export function lastWritten(memory: CoreMemory): LastWritten {
  return memory.get(SLOT, () => new LastWritten());
}

/**
 * Appends by compare-and-set: `next` makes the record that follows the one given. The first try
 * offers what this instance last wrote (no read); when refused, or unknown here, `read` gives the
 * record as stored and up to `tries` attempts follow, as without the memo. True when written.
 */
export async function appendByCas(
  memo: LastWritten,
  at: { tenant: Tenant; key: ScopedKey },
  ops: {
    read: () => Promise<Json | undefined>;
    reread: () => Promise<Json | undefined>;
    next: (raw: Json | undefined) => Json;
    write: (expected: Json | undefined, next: Json) => Promise<boolean>;
  },
  tries: number,
): Promise<boolean> {
  const guess = memo.guess(at.tenant, at.key);
  if (guess !== undefined) {
    const next = ops.next(guess.value);
    if (await ops.write(guess.value, next)) {
      memo.note(at.tenant, at.key, next);
      return true;
    }
    memo.forget(at.tenant, at.key);
  }
  let raw = await ops.read();
  for (let attempt = 0; attempt < tries; attempt++) {
    const next = ops.next(raw);
    if (await ops.write(raw, next)) {
      memo.note(at.tenant, at.key, next);
      return true;
    }
    raw = await ops.reread();
  }
  return false;
}
