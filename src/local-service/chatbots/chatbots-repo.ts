import crypto from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open';
import { type ChatbotSettings, defaultSettings } from './settings';

export type ChatbotStatus = 'active' | 'inactive' | 'draft';

export interface ChatbotRecord {
  id: string;
  status: ChatbotStatus;
  description: string;
  settings: ChatbotSettings;
  /** Second-family settings members that have no first-family field (tone, max_tokens ...). */
  v1Settings: Record<string, unknown>;
  apiKey: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  status: ChatbotStatus;
  description: string;
  settings_json: string;
  v1_settings_json: string;
  api_key: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewChatbot {
  id?: string;
  name: string;
  status: ChatbotStatus;
  description?: string;
  settings?: Partial<ChatbotSettings>;
  v1Settings?: Record<string, unknown>;
  withApiKey: boolean;
}

/** Chatbots of both families (one table); records are cached since every ask reads them. */
export class ChatbotsRepo {
  private readonly cache = new Map<string, ChatbotRecord>();
  private readonly getStmt: Statement<[string], Row>;
  private readonly byKeyStmt: Statement<[string], Row>;
  private readonly insertStmt: Statement<[string, string, string, string, string, string | null, number, number]>;
  private readonly saveStmt: Statement<[string, string, string, string, number, string]>;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare('SELECT * FROM chatbots WHERE id = ?');
    this.byKeyStmt = db.prepare('SELECT * FROM chatbots WHERE api_key = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO chatbots (id, status, description, settings_json, v1_settings_json, api_key, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.saveStmt = db.prepare(
      'UPDATE chatbots SET status = ?, description = ?, settings_json = ?, v1_settings_json = ?, updated_at = ? WHERE id = ?',
    );
  }

  get(id: string): ChatbotRecord | undefined {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const row = this.getStmt.get(id);
    if (!row) return undefined;
    const rec = fromRow(row);
    this.cache.set(id, rec);
    return rec;
  }

  byApiKey(key: string): ChatbotRecord | undefined {
    const row = this.byKeyStmt.get(key);
    return row ? this.get(row.id) : undefined;
  }

  create(n: NewChatbot): ChatbotRecord {
    const now = Date.now();
    const id = n.id ?? `cb_${crypto.randomBytes(8).toString('hex')}`;
    const settings: ChatbotSettings = { ...defaultSettings(n.name), ...n.settings, Name: n.name };
    const apiKey = n.withApiKey ? `cbk_${crypto.randomBytes(24).toString('hex')}` : null;
    this.insertStmt.run(
      id,
      n.status,
      n.description ?? '',
      JSON.stringify(settings),
      JSON.stringify(n.v1Settings ?? {}),
      apiKey,
      now,
      now,
    );
    this.cache.delete(id);
    const rec = this.get(id);
    if (!rec) throw new Error(`chatbot ${id} vanished after insert`);
    return rec;
  }

  update(
    id: string,
    change: {
      status?: ChatbotStatus;
      description?: string;
      settings?: Partial<ChatbotSettings>;
      v1Settings?: Record<string, unknown>;
    },
  ): ChatbotRecord | undefined {
    const cur = this.get(id);
    if (!cur) return undefined;
    const next: ChatbotRecord = {
      ...cur,
      status: change.status ?? cur.status,
      description: change.description ?? cur.description,
      settings: { ...cur.settings, ...change.settings },
      v1Settings: { ...cur.v1Settings, ...change.v1Settings },
      // Two edits within one millisecond must still read as an update.
      updatedAt: Math.max(Date.now(), cur.updatedAt + 1),
    };
    this.saveStmt.run(
      next.status,
      next.description,
      JSON.stringify(next.settings),
      JSON.stringify(next.v1Settings),
      next.updatedAt,
      id,
    );
    this.cache.set(id, next);
    return next;
  }

  /** A page in creation order (stable), optionally one status or one chatbot only. */
  list(f: { status?: ChatbotStatus; onlyId?: string; page: number; limit: number }): {
    items: ChatbotRecord[];
    total: number;
  } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (f.status) {
      where.push('status = ?');
      args.push(f.status);
    }
    if (f.onlyId !== undefined) {
      where.push('id = ?');
      args.push(f.onlyId);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM chatbots ${w}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM chatbots ${w} ORDER BY created_at, rowid LIMIT ? OFFSET ?`)
      .all(...args, f.limit, (f.page - 1) * f.limit) as Row[];
    return { items: rows.map(fromRow), total };
  }
}

function fromRow(r: Row): ChatbotRecord {
  const stored = JSON.parse(r.settings_json) as Partial<ChatbotSettings>;
  return {
    id: r.id,
    status: r.status,
    description: r.description,
    // Defaults under the stored values: a database written before a field existed still reads whole.
    settings: { ...defaultSettings(stored.Name ?? r.id), ...stored },
    v1Settings: JSON.parse(r.v1_settings_json) as Record<string, unknown>,
    apiKey: r.api_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
