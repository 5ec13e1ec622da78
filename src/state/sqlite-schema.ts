/** The SQLite store's tables (sqlite-store.ts), created when a file is opened. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS queue_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  value TEXT NOT NULL,
  at INTEGER
);
CREATE INDEX IF NOT EXISTS queue_items_order ON queue_items (queue, id);
CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_log_window ON rate_log (key, at);
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  box TEXT NOT NULL,
  id TEXT NOT NULL,
  value TEXT NOT NULL,
  result TEXT,
  done_until INTEGER,
  at INTEGER,
  UNIQUE (box, id)
);
CREATE TABLE IF NOT EXISTS due (
  idx TEXT NOT NULL,
  member TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  PRIMARY KEY (idx, member)
);
CREATE INDEX IF NOT EXISTS due_order ON due (idx, due_at);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (box, seq) WHERE done_until IS NULL;
`;
