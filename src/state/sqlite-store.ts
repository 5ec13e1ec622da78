import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson, formatQueueId } from './canonical-json';
import { type RetentionOptions, retainedTtl } from './retention';
import { SqliteLeases } from './sqlite-leases';
import { SCHEMA } from './sqlite-schema';
import { takeSqliteTokens } from './sqlite-tokens';
import type {
  DueEntry,
  DueMove,
  Fence,
  FencedRenewal,
  FencedOutcome,
  FencedWrite,
  Json,
  LeaseInfo,
  OutboxIntent,
  QueueItem,
  RateDecision,
  StateStore,
  StoredIntent,
  TokenBudget,
} from './store';

interface OutboxRow {
  id: string;
  value: string;
  result: string | null;
  done_until: number | null;
}

function storedIntent<T extends Json>(row: OutboxRow): StoredIntent<T> {
  return {
    id: row.id,
    value: JSON.parse(row.value) as T,
    state: row.done_until === null ? 'pending' : 'done',
    ...(row.result !== null ? { result: JSON.parse(row.result) as Json } : {}),
  };
}

/** Expired rows are skipped on every read; a full sweep at most this often keeps the file small. */
const PURGE_EVERY_MS = 60_000;

interface KvRow {
  value: string;
  expires_at: number | null;
}

/**
 * StateStore on one SQLite file (or ':memory:').
 *
 * Every multi-step operation runs in a BEGIN IMMEDIATE transaction: it takes the write lock before
 * reading, so several processes sharing the file serialise instead of racing, and the busy timeout
 * makes a waiting process retry rather than fail. takeToken is a sliding-window log: a grant is a row
 * (at its booked time, sqlite-tokens.ts), and no window of `windowMs` holds more than `limit` rows.
 */
export class SqliteStore implements StateStore {
  private readonly db: Database.Database;
  private lastPurge = 0;
  private statementCount = 0;
  private readonly statements = new Map<string, Database.Statement>();

  private readonly retentionMs: number | undefined;
  private readonly leases: SqliteLeases;

  constructor(path: string, opts: RetentionOptions = {}) {
    this.retentionMs = opts.retentionMs;
    if (path !== ':memory:' && path !== '' && !path.startsWith('file:')) {
      mkdirSync(dirname(path), { recursive: true });
    }
    this.db = new Database(path);
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('journal_mode = WAL');
    // WAL + NORMAL is durable against process crashes; only an OS crash can lose the last commit.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.addActivityColumns();
    this.leases = new SqliteLeases({
      db: this.db,
      stmt: (sql) => this.stmt(sql),
      expiry: (ttlMs) => this.expiry(ttlMs),
    });
  }

  /**
   * Queue items, outbox intents: when they were last written (`at`), so the retention sweep can drop
   * them. Files made before the column existed get it, their rows dated now.
   */
  private addActivityColumns(): void {
    for (const table of ['queue_items', 'outbox']) {
      const columns = this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
      if (columns.some((c) => c.name === 'at')) continue;
      this.db.exec(`ALTER TABLE ${table} ADD COLUMN at INTEGER`);
      this.db.prepare(`UPDATE ${table} SET at = ? WHERE at IS NULL`).run(Date.now());
    }
  }

  async get<T extends Json = Json>(key: string): Promise<T | undefined> {
    const now = Date.now();
    const row = this.stmt('SELECT value, expires_at FROM kv WHERE key = ?').get(key) as KvRow | undefined;
    if (!row) return undefined;
    if (row.expires_at !== null && row.expires_at <= now) {
      this.stmt('DELETE FROM kv WHERE key = ? AND expires_at <= ?').run(key, now);
      return undefined;
    }
    return JSON.parse(row.value) as T;
  }

  async set(key: string, value: Json, ttlMs?: number): Promise<void> {
    const expiresAt = this.expiry(ttlMs);
    this.stmt(
      `INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    ).run(key, canonicalJson(value), expiresAt);
    this.maybePurge();
  }

  async delete(key: string): Promise<void> {
    this.stmt('DELETE FROM kv WHERE key = ?').run(key);
  }

  async touch(key: string, ttlMs?: number): Promise<boolean> {
    const info = this.stmt('UPDATE kv SET expires_at = ? WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)').run(
      this.expiry(ttlMs),
      key,
      Date.now(),
    );
    return info.changes === 1;
  }

  async setIfAbsent(key: string, value: Json, ttlMs?: number): Promise<boolean> {
    const expiresAt = this.expiry(ttlMs);
    // One statement is atomic on its own: the upsert only overwrites a row that has expired.
    const info = this.stmt(
      `INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
         WHERE kv.expires_at IS NOT NULL AND kv.expires_at <= ?`,
    ).run(key, canonicalJson(value), expiresAt, Date.now());
    this.maybePurge();
    return info.changes === 1;
  }

  async compareAndSet(key: string, expected: Json | undefined, next: Json, ttlMs?: number): Promise<boolean> {
    return this.compareAndSetThen(key, expected, next, ttlMs, () => {});
  }

  async compareAndSetWithIntents(
    key: string,
    expected: Json | undefined,
    next: Json,
    ttlMs: number | undefined,
    box: string,
    intents: OutboxIntent[],
  ): Promise<boolean> {
    return this.compareAndSetThen(key, expected, next, ttlMs, (now) => {
      // A done row whose memory ran out no longer blocks its id.
      this.stmt('DELETE FROM outbox WHERE box = ? AND done_until IS NOT NULL AND done_until <= ?').run(box, now);
      for (const intent of intents) {
        this.stmt('INSERT INTO outbox (box, id, value, at) VALUES (?, ?, ?, ?) ON CONFLICT(box, id) DO NOTHING').run(
          box,
          intent.id,
          canonicalJson(intent.value),
          now,
        );
      }
    });
  }

  async pendingIntents<T extends Json = Json>(box: string, limit: number): Promise<Array<StoredIntent<T>>> {
    const rows = this.stmt(
      'SELECT id, value, result, done_until FROM outbox WHERE box = ? AND done_until IS NULL ORDER BY seq LIMIT ?',
    ).all(box, Math.max(0, Math.floor(limit))) as OutboxRow[];
    return rows.map((r) => storedIntent<T>(r));
  }

  async intent<T extends Json = Json>(box: string, id: string): Promise<StoredIntent<T> | undefined> {
    const row = this.stmt(
      `SELECT id, value, result, done_until FROM outbox
         WHERE box = ? AND id = ? AND (done_until IS NULL OR done_until > ?)`,
    ).get(box, id, Date.now()) as OutboxRow | undefined;
    return row ? storedIntent<T>(row) : undefined;
  }

  async recordIntentResult(box: string, id: string, result: Json): Promise<boolean> {
    const info = this.stmt('UPDATE outbox SET result = ?, at = ? WHERE box = ? AND id = ? AND done_until IS NULL').run(
      canonicalJson(result),
      Date.now(),
      box,
      id,
    );
    return info.changes === 1;
  }

  async completeIntent(box: string, id: string, doneTtlMs: number): Promise<boolean> {
    const ttl = retainedTtl(doneTtlMs, this.retentionMs) as number;
    const now = Date.now();
    const info = this.stmt(
      'UPDATE outbox SET done_until = ?, at = ? WHERE box = ? AND id = ? AND done_until IS NULL',
    ).run(now + ttl, now, box, id);
    return info.changes === 1;
  }

  async keys(prefix: string): Promise<string[]> {
    const rows = this.stmt(
      `SELECT key FROM kv WHERE key >= ? AND substr(key, 1, ?) = ?
         AND (expires_at IS NULL OR expires_at > ?)`,
    ).all(prefix, prefix.length, prefix, Date.now()) as Array<{ key: string }>;
    return rows.map((r) => r.key);
  }

  async push(queue: string, value: Json): Promise<QueueItem> {
    const info = this.stmt('INSERT INTO queue_items (queue, value, at) VALUES (?, ?, ?)').run(
      queue,
      canonicalJson(value),
      Date.now(),
    );
    this.maybePurge();
    return { id: formatQueueId(Number(info.lastInsertRowid)), value };
  }

  async peek<T extends Json = Json>(queue: string): Promise<QueueItem<T> | undefined> {
    const row = this.stmt('SELECT id, value FROM queue_items WHERE queue = ? ORDER BY id LIMIT 1').get(queue) as
      | { id: number; value: string }
      | undefined;
    return row ? { id: formatQueueId(row.id), value: JSON.parse(row.value) as T } : undefined;
  }

  async ack(queue: string, id: string): Promise<boolean> {
    if (!/^\d+$/.test(id)) return false;
    return this.stmt('DELETE FROM queue_items WHERE queue = ? AND id = ?').run(queue, Number(id)).changes === 1;
  }

  async length(queue: string): Promise<number> {
    const row = this.stmt('SELECT COUNT(*) AS n FROM queue_items WHERE queue = ?').get(queue) as { n: number };
    return row.n;
  }

  async acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.acquireFencedLease(name, owner, ttlMs)) !== undefined;
  }

  async acquireFencedLease(name: string, owner: string, ttlMs: number): Promise<Fence | undefined> {
    return this.leases.acquire(name, owner, ttlMs);
  }

  async writeFenced(fence: Fence, writes: FencedWrite[], renew?: FencedRenewal): Promise<FencedOutcome> {
    return this.leases.writeFenced(fence, writes, renew);
  }

  async renewLease(name: string, owner: string, ttlMs: number, move?: DueMove): Promise<boolean> {
    const renewed = this.leases.renew(name, owner, ttlMs);
    if (move) {
      this.stmt('UPDATE due SET due_at = ? WHERE idx = ? AND member = ?').run(
        Math.round(move.dueAt),
        move.index,
        move.member,
      );
    }
    return renewed;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    this.leases.release(name, owner);
  }

  async leaseInfo(name: string): Promise<LeaseInfo | undefined> {
    return this.leases.info(name);
  }

  async takeToken(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    return this.takeTokens([{ key, limit, windowMs }]);
  }

  async takeTokens(budgets: readonly TokenBudget[]): Promise<RateDecision> {
    const tx = this.db.transaction((): RateDecision => takeSqliteTokens((sql) => this.stmt(sql), budgets, Date.now()));
    return tx.immediate();
  }

  async schedule(index: string, member: string, dueAt: number): Promise<void> {
    this.stmt(
      `INSERT INTO due (idx, member, due_at) VALUES (?, ?, ?)
         ON CONFLICT(idx, member) DO UPDATE SET due_at = excluded.due_at`,
    ).run(index, member, Math.round(dueAt));
  }

  async unschedule(index: string, member: string): Promise<void> {
    this.stmt('DELETE FROM due WHERE idx = ? AND member = ?').run(index, member);
  }

  async due(index: string, until: number, limit: number): Promise<DueEntry[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return [];
    const rows = this.stmt(
      'SELECT member, due_at FROM due WHERE idx = ? AND due_at <= ? ORDER BY due_at, member LIMIT ?',
    ).all(index, Math.round(until), n) as Array<{ member: string; due_at: number }>;
    return rows.map((r) => ({ member: r.member, dueAt: r.due_at }));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * The one compare-and-set: replaces `key`'s value only if it still deep-equals `expected`, and runs
   * `alsoWritten` in the same immediate transaction only when it replaced, so a change and what it
   * owes (the outbox intents) are written together or not at all. `now` is the transaction's clock.
   */
  private compareAndSetThen(
    key: string,
    expected: Json | undefined,
    next: Json,
    ttlMs: number | undefined,
    alsoWritten: (now: number) => void,
  ): boolean {
    const expiresAt = this.expiry(ttlMs);
    const expectedText = expected === undefined ? undefined : canonicalJson(expected);
    const nextText = canonicalJson(next);
    const tx = this.db.transaction((): boolean => {
      const now = Date.now();
      const row = this.stmt('SELECT value, expires_at FROM kv WHERE key = ?').get(key) as KvRow | undefined;
      const current = row && (row.expires_at === null || row.expires_at > now) ? row.value : undefined;
      if (current !== expectedText) return false;
      this.stmt(
        `INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?)
           ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      ).run(key, nextText, expiresAt);
      alsoWritten(now);
      return true;
    });
    return tx.immediate();
  }

  private expiry(ttlMs: number | undefined): number | null {
    const ttl = retainedTtl(ttlMs, this.retentionMs);
    return ttl === undefined ? null : Date.now() + ttl;
  }

  /**
   * SQL statements this store has run (each statement handed out is run once): what one answer costs
   * the store, counted by test/state/answer-cost.test.ts against the README's budget.
   */
  get statementsRun(): number {
    return this.statementCount;
  }

  /** Statements are compiled once per connection; preparing is most of the cost of a small query. */
  private stmt(sql: string): Database.Statement {
    this.statementCount++;
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private maybePurge(): void {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.stmt('DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?').run(now);
    this.stmt('DELETE FROM leases WHERE expires_at <= ?').run(now);
    this.stmt('DELETE FROM outbox WHERE done_until IS NOT NULL AND done_until <= ?').run(now);
    if (this.retentionMs === undefined) return;
    // RETENTION_DAYS for the rows that carry no expiry of their own: a queue item or an intent left
    // unhandled, a rate log's grants (every window is far shorter).
    const before = now - this.retentionMs;
    this.stmt('DELETE FROM queue_items WHERE at <= ?').run(before);
    this.stmt('DELETE FROM outbox WHERE at <= ?').run(before);
    this.stmt('DELETE FROM rate_log WHERE at <= ?').run(before);
  }
}
