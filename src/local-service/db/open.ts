import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Bump when the schema below changes; `migrate` applies every step above the stored version. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE chatbots (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    settings_json TEXT NOT NULL,
    v1_settings_json TEXT NOT NULL DEFAULT '{}',
    api_key TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX chatbots_status ON chatbots (status, created_at, id);

  CREATE TABLE listings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chatbot_id TEXT NOT NULL,
    sale_type TEXT NOT NULL,
    status TEXT NOT NULL,
    city TEXT NOT NULL,
    city_norm TEXT NOT NULL,
    mls_number TEXT NOT NULL,
    url TEXT NOT NULL,
    bedrooms REAL NOT NULL,
    price REAL,
    data_json TEXT NOT NULL,
    item_json TEXT NOT NULL
  );
  CREATE INDEX listings_city ON listings (chatbot_id, city_norm, sale_type, id);
  CREATE INDEX listings_sale ON listings (chatbot_id, sale_type, id);
  CREATE INDEX listings_mls ON listings (chatbot_id, mls_number);
  CREATE INDEX listings_url ON listings (chatbot_id, url);

  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chatbot_id TEXT NOT NULL,
    user_id TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    session_token TEXT NOT NULL,
    metadata_json TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX sessions_chatbot ON sessions (chatbot_id, created_at);
  CREATE INDEX sessions_user ON sessions (user_id, created_at);

  CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL,
    chatbot_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    no_answer INTEGER NOT NULL DEFAULT 0,
    total_token INTEGER NOT NULL DEFAULT 0,
    response_ms INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX messages_session ON messages (session_id, role, created_at);
  CREATE INDEX messages_chatbot ON messages (chatbot_id, role, created_at);

  CREATE TABLE uploads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file_name TEXT NOT NULL,
    token TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    size INTEGER,
    kind TEXT,
    format TEXT,
    created_at INTEGER NOT NULL
  );
  -- Ids that look like the hosted service's (six digits, never 0 or 1).
  INSERT INTO sqlite_sequence (name, seq) VALUES ('sessions', 100000), ('uploads', 30000), ('messages', 500000);
  `,
];

export type Db = Database.Database;

/** Opens (creating its directory) and migrates the service database. */
export function openDatabase(dbPath: string): Db {
  if (dbPath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const db = new Database(dbPath);
  if (dbPath !== ':memory:') db.pragma('journal_mode = WAL');
  // WAL + NORMAL keeps every committed write across a process crash, at a fraction of FULL's cost.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
