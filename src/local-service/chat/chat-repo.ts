import crypto from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open';

export type ConversationStatus = 'active' | 'completed';

/** A chat session of the first family and a conversation of the second: one record. */
export interface SessionRecord {
  id: number;
  chatbotId: string;
  userId: string | null;
  status: ConversationStatus;
  sessionToken: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface MessageRecord {
  id: number;
  sessionId: number;
  role: 'user' | 'assistant';
  content: string;
  noAnswer: boolean;
  totalToken: number;
  createdAt: number;
}

interface SessionRow {
  id: number;
  chatbot_id: string;
  user_id: string | null;
  status: ConversationStatus;
  session_token: string;
  metadata_json: string;
  created_at: number;
  updated_at: number;
}

interface MessageRow {
  id: number;
  session_id: number;
  role: 'user' | 'assistant';
  content: string;
  no_answer: number;
  total_token: number;
  created_at: number;
}

export interface AnalyticsFigures {
  total_conversations: number;
  total_messages: number;
  unique_users: number;
  avg_conversation_length: number;
  resolution_rate: number;
  avg_response_time: number;
}

/** Sessions and messages; every statement prepared once. */
export class ChatRepo {
  private readonly insertSession: Statement<[string, string | null, string, string, number, number]>;
  private readonly getSessionStmt: Statement<[number], SessionRow>;
  private readonly touchSession: Statement<[number, number]>;
  private readonly insertMessage: Statement<[number, string, string, string, number, number, number | null, number]>;
  private readonly messagesOf: Statement<[number], MessageRow>;
  private readonly recentOf: Statement<[number, number], MessageRow>;
  private readonly countSessionSince: Statement<[number, number], { n: number }>;
  private readonly countChatbotSince: Statement<[string, number], { n: number }>;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.insertSession = db.prepare(
      `INSERT INTO sessions (chatbot_id, user_id, session_token, metadata_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.getSessionStmt = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.touchSession = db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?');
    this.insertMessage = db.prepare(
      `INSERT INTO messages (session_id, chatbot_id, role, content, no_answer, total_token, response_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.messagesOf = db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id');
    this.recentOf = db.prepare(
      'SELECT * FROM (SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
    );
    this.countSessionSince = db.prepare(
      `SELECT COUNT(*) AS n FROM messages WHERE session_id = ? AND role = 'user' AND created_at > ?`,
    );
    this.countChatbotSince = db.prepare(
      `SELECT COUNT(*) AS n FROM messages WHERE chatbot_id = ? AND role = 'user' AND created_at >= ?`,
    );
  }

  createSession(chatbotId: string, userId?: string, metadata?: Record<string, unknown>): SessionRecord {
    const now = this.now();
    const token = `st_${crypto.randomBytes(16).toString('hex')}`;
    const info = this.insertSession.run(chatbotId, userId ?? null, token, JSON.stringify(metadata ?? {}), now, now);
    const s = this.getSession(Number(info.lastInsertRowid));
    if (!s) throw new Error('session vanished after insert');
    return s;
  }

  getSession(id: number): SessionRecord | undefined {
    if (!Number.isSafeInteger(id)) return undefined;
    const r = this.getSessionStmt.get(id);
    return r ? sessionFromRow(r) : undefined;
  }

  addMessage(
    s: SessionRecord,
    m: { role: 'user' | 'assistant'; content: string; noAnswer?: boolean; totalToken?: number; responseMs?: number },
  ): MessageRecord {
    const now = this.now();
    const info = this.insertMessage.run(
      s.id,
      s.chatbotId,
      m.role,
      m.content,
      m.noAnswer ? 1 : 0,
      m.totalToken ?? 0,
      m.responseMs ?? null,
      now,
    );
    this.touchSession.run(now, s.id);
    return {
      id: Number(info.lastInsertRowid),
      sessionId: s.id,
      role: m.role,
      content: m.content,
      noAnswer: !!m.noAnswer,
      totalToken: m.totalToken ?? 0,
      createdAt: now,
    };
  }

  messages(sessionId: number): MessageRecord[] {
    return this.messagesOf.all(sessionId).map(messageFromRow);
  }

  recentMessages(sessionId: number, n: number): MessageRecord[] {
    return this.recentOf.all(sessionId, n).map(messageFromRow);
  }

  userMessagesInSessionSince(sessionId: number, sinceMs: number): number {
    return this.countSessionSince.get(sessionId, sinceMs)?.n ?? 0;
  }

  userMessagesOfChatbotSince(chatbotId: string, sinceMs: number): number {
    return this.countChatbotSince.get(chatbotId, sinceMs)?.n ?? 0;
  }

  /** A user's conversations, newest first, with their message counts. */
  conversationsOfUser(
    userId: string,
    f: { status?: ConversationStatus; chatbotId?: string; limit: number },
  ): { items: (SessionRecord & { messageCount: number })[]; total: number } {
    const where = ['s.user_id = ?'];
    const args: unknown[] = [userId];
    if (f.status) {
      where.push('s.status = ?');
      args.push(f.status);
    }
    if (f.chatbotId !== undefined) {
      where.push('s.chatbot_id = ?');
      args.push(f.chatbotId);
    }
    const w = where.join(' AND ');
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM sessions s WHERE ${w}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(
        `SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count
         FROM sessions s WHERE ${w} ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
      )
      .all(...args, f.limit) as (SessionRow & { message_count: number })[];
    return { items: rows.map((r) => ({ ...sessionFromRow(r), messageCount: r.message_count })), total };
  }

  /** Figures over conversations started and messages sent within [startMs, endMs]. */
  analytics(startMs: number, endMs: number, chatbotId?: string): AnalyticsFigures {
    const cb = chatbotId !== undefined ? ' AND chatbot_id = ?' : '';
    const args: unknown[] = chatbotId !== undefined ? [startMs, endMs, chatbotId] : [startMs, endMs];
    const conv = this.db
      .prepare(
        `SELECT COUNT(*) AS n, COUNT(DISTINCT COALESCE(user_id, 'session:' || id)) AS users
         FROM sessions WHERE created_at >= ? AND created_at <= ?${cb}`,
      )
      .get(...args) as { n: number; users: number };
    const msg = this.db
      .prepare(
        `SELECT COUNT(*) AS n,
                COUNT(DISTINCT session_id) AS sessions,
                SUM(CASE WHEN role = 'assistant' THEN 1 ELSE 0 END) AS answers,
                SUM(CASE WHEN role = 'assistant' AND no_answer = 0 THEN 1 ELSE 0 END) AS resolved,
                AVG(CASE WHEN role = 'assistant' THEN response_ms END) AS avg_ms
         FROM messages WHERE created_at >= ? AND created_at <= ?${cb}`,
      )
      .get(...args) as {
      n: number;
      sessions: number;
      answers: number | null;
      resolved: number | null;
      avg_ms: number | null;
    };
    const answers = msg.answers ?? 0;
    return {
      total_conversations: conv.n,
      total_messages: msg.n,
      unique_users: conv.users,
      avg_conversation_length: msg.sessions > 0 ? round(msg.n / msg.sessions, 2) : 0,
      resolution_rate: answers > 0 ? round((msg.resolved ?? 0) / answers, 4) : 0,
      avg_response_time: msg.avg_ms !== null ? round(msg.avg_ms / 1000, 3) : 0,
    };
  }
}

const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;

function sessionFromRow(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    chatbotId: r.chatbot_id,
    userId: r.user_id,
    status: r.status,
    sessionToken: r.session_token,
    metadata: JSON.parse(r.metadata_json) as Record<string, unknown>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function messageFromRow(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    role: r.role,
    content: r.content,
    noAnswer: r.no_answer === 1,
    totalToken: r.total_token,
    createdAt: r.created_at,
  };
}
