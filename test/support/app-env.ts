/**
 * What every end-to-end setup shares, in-process or as a real process: the local chatbot service on
 * a real port with its own SQLite file, the CHATBOT_* environment that points the bridge at it, and
 * reads of what the service stored (to compare answers shown on a platform with the service's text).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppHandle } from '../../src/app';
import { buildLocalService, type LocalService } from '../../src/local-service';

/** The local chatbot service listening on 127.0.0.1. */
export interface TestService {
  service: LocalService;
  url: string;
  close(): Promise<void>;
  /** Answers the service stored for `question` (oldest first, newest last). */
  storedAnswers(question: string): string[];
  /** The chat session a user message was asked in (the latest such message). */
  sessionOf(question: string): number | undefined;
  /** The user messages of a session, in the order the service received them. */
  questionsOf(sessionId: number): string[];
}

/** What an in-process end-to-end setup hands a test, whatever the platform. */
export interface InProcessE2E {
  app: AppHandle;
  service: LocalService;
  /** The answers the service stored for `question` (oldest first, newest last). */
  storedAnswers(question: string): string[];
  close(): Promise<void>;
}

/** A fresh temporary directory and its removal. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the local chatbot service with its database in `dir`. `prepare` runs before it listens
 * (Fastify takes hooks only then).
 */
export async function startTestService(opts: {
  dir: string;
  fragmentDelayMs: number;
  prepare?: (service: LocalService) => void;
  /** Answer with an OpenAI-compatible backend (a fake one in tests) instead of the built-in answerer. */
  llm?: { baseUrl: string };
}): Promise<TestService> {
  const service = buildLocalService({
    dbPath: join(opts.dir, 'service.db'),
    fragmentDelayMs: opts.fragmentDelayMs,
    ...(opts.llm ? { llm: opts.llm } : {}),
  });
  opts.prepare?.(service);
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = service.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const db = service.context.db;
  return {
    service,
    url,
    close: () => service.app.close(),
    storedAnswers(question) {
      const rows = db
        .prepare(
          `SELECT a.content AS content FROM messages q JOIN messages a
             ON a.session_id = q.session_id AND a.role = 'assistant'
            AND a.id = (SELECT MIN(id) FROM messages WHERE session_id = q.session_id AND role = 'assistant' AND id > q.id)
           WHERE q.role = 'user' AND q.content = ? ORDER BY a.id`,
        )
        .all(question) as Array<{ content: string }>;
      return rows.map((r) => r.content);
    },
    sessionOf(question) {
      const row = db
        .prepare(`SELECT session_id AS s FROM messages WHERE role = 'user' AND content = ? ORDER BY id DESC LIMIT 1`)
        .get(question) as { s: number } | undefined;
      return row?.s;
    },
    questionsOf(sessionId) {
      const rows = db
        .prepare(`SELECT content FROM messages WHERE role = 'user' AND session_id = ? ORDER BY id`)
        .all(sessionId) as Array<{ content: string }>;
      return rows.map((r) => r.content);
    },
  };
}

/** The CHATBOT_* variables that point the bridge at the local service. */
export function chatbotEnv(service: LocalService, url: string): Record<string, string> {
  return {
    CHATBOT_API_URL: url,
    CHATBOT_SECRET_KEY: service.credentials.secretKey,
    CHATBOT_SESSION_KEY: service.credentials.sessionKey,
    CHATBOT_API_KEY: service.credentials.apiKey,
    CHATBOT_ID: service.chatbotId,
  };
}

/** The environment of an in-process app: the service, a SQLite state store in `dir`, any port, no logs. */
export function inProcessEnv(svc: TestService, dir: string): Record<string, string> {
  return {
    ...chatbotEnv(svc.service, svc.url),
    STATE_URL: `sqlite:${join(dir, 'bridge.db')}`,
    PORT: '0',
    LOG_LEVEL: 'silent',
  };
}
