/**
 * The SQLite store's leases and fenced writes (sqlite-store.ts), apart so the store reads as the
 * StateStore it implements. Each lease row carries its fencing token (fence-token.ts).
 */
import type Database from 'better-sqlite3';
import { canonicalJson, checkTtl } from './canonical-json';
import { nextFenceToken } from './fence-token';
import type { Fence, FencedOutcome, FencedRenewal, FencedWrite, LeaseInfo } from './store';

/** What the leases need of their store: its connection, its cached statements and its expiry rule. */
export interface SqliteAccess {
  db: Database.Database;
  stmt(sql: string): Database.Statement;
  /** The expiry of a value written with `ttlMs` now (RETENTION_DAYS applied). */
  expiry(ttlMs: number | undefined): number | null;
}

export class SqliteLeases {
  constructor(private readonly s: SqliteAccess) {
    // Files made before tokens have lease rows without one (token 0).
    const columns = s.db.prepare('PRAGMA table_info(leases)').all() as Array<{ name: string }>;
    if (!columns.some((c) => c.name === 'token')) {
      s.db.exec('ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0');
    }
  }

  /** Held: free, run out, or already this owner's (a renewal, same token). One statement. */
  acquire(name: string, owner: string, ttlMs: number): Fence | undefined {
    const ttl = checkTtl(ttlMs) as number;
    const now = Date.now();
    const row = this.s
      .stmt(
        `INSERT INTO leases (name, owner, expires_at, token) VALUES (?, ?, ?, ?)
           ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
             token = CASE WHEN leases.owner = excluded.owner AND leases.expires_at > ?
               THEN leases.token ELSE excluded.token END
           WHERE leases.owner = excluded.owner OR leases.expires_at <= ?
         RETURNING token`,
      )
      .get(name, owner, now + ttl, nextFenceToken(), now, now) as { token: number } | undefined;
    return row ? { lease: name, owner, token: row.token } : undefined;
  }

  /** The writes only while `fence` holds its lease (renewed with them when `renew`), in one immediate transaction. */
  writeFenced(fence: Fence, writes: FencedWrite[], renew?: FencedRenewal): FencedOutcome {
    const renewTtl = renew === undefined ? undefined : (checkTtl(renew.ttlMs) as number);
    const prepared = writes.map((w) =>
      w.op === 'set' ? { w, text: canonicalJson(w.value), expiresAt: this.s.expiry(w.ttlMs) } : { w },
    );
    const tx = this.s.db.transaction((): FencedOutcome => {
      const held = this.s
        .stmt('SELECT 1 AS held FROM leases WHERE name = ? AND owner = ? AND token = ? AND expires_at > ?')
        .get(fence.lease, fence.owner, fence.token, Date.now());
      if (!held) return false;
      if (renewTtl !== undefined) {
        this.s.stmt('UPDATE leases SET expires_at = ? WHERE name = ?').run(Date.now() + renewTtl, fence.lease);
        const move = renew?.move;
        if (move)
          this.s
            .stmt('UPDATE due SET due_at = ? WHERE idx = ? AND member = ?')
            .run(Math.round(move.dueAt), move.index, move.member);
      }
      for (const p of prepared) {
        const { w } = p;
        if (w.op === 'set' && 'text' in p) {
          this.s
            .stmt(
              `INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
            )
            .run(w.key, p.text, p.expiresAt);
        } else if (w.op === 'delete') {
          this.s.stmt('DELETE FROM kv WHERE key = ?').run(w.key);
        } else if (w.op === 'ack' && /^\d+$/.test(w.id)) {
          this.s.stmt('DELETE FROM queue_items WHERE queue = ? AND id = ?').run(w.queue, Number(w.id));
        } else if (w.op === 'unschedule') {
          this.s.stmt('DELETE FROM due WHERE idx = ? AND member = ?').run(w.index, w.member);
        } else if (w.op === 'ifEmpty') {
          if (this.s.stmt('SELECT 1 AS any FROM queue_items WHERE queue = ? LIMIT 1').get(w.queue)) return 'stopped';
        } else if (w.op === 'release') {
          this.s.stmt('DELETE FROM leases WHERE name = ? AND owner = ?').run(fence.lease, fence.owner);
        }
      }
      return true;
    });
    return tx.immediate();
  }

  renew(name: string, owner: string, ttlMs: number): boolean {
    const ttl = checkTtl(ttlMs) as number;
    const now = Date.now();
    // An expired lease is lost even if nobody took it yet: the owner must acquire again, as with Redis.
    const info = this.s
      .stmt('UPDATE leases SET expires_at = ? WHERE name = ? AND owner = ? AND expires_at > ?')
      .run(now + ttl, name, owner, now);
    return info.changes === 1;
  }

  release(name: string, owner: string): void {
    this.s.stmt('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
  }

  info(name: string): LeaseInfo | undefined {
    const row = this.s
      .stmt('SELECT owner, expires_at FROM leases WHERE name = ? AND expires_at > ?')
      .get(name, Date.now()) as { owner: string; expires_at: number } | undefined;
    return row ? { owner: row.owner, expiresAt: row.expires_at } : undefined;
  }
}
