/**
 * What the scale-out bench reads about each `/ask`: what its thread shows on the fake Slack (the
 * service's answer exact, or marked interrupted with a Retry button, or neither yet), when the call
 * that settled it reached Slack, and what the chatbot service stored for it.
 */
import type { Db } from '../../src/local-service/db/open';
import type { FakeMessage, FakeSlack } from '../../fakes/fake-slack';
import { button, sameAnswer } from '../../fakes/slack-blocks';

export interface Ask {
  index: number;
  workspace: number;
  channel: string;
  user: string;
  /** Unique per ask: the service's answer and the thread's root are found by it. */
  question: string;
}

export type Outcome = 'exact' | 'interrupted' | 'pending';

export interface Seen {
  outcome: Outcome;
  /** The (first) root's ts: the conversation's thread. */
  root?: string;
  /** Roots the bridge posted for this ask (1 expected). */
  roots: number;
  /** Complete runs of the answer in the thread (1 expected when exact). */
  answerRuns: number;
  /** When the fake received the last call touching the thread (the one that settled it). */
  settledAt: number;
}

/** The answer the service stored for `question` and when (the stream's end), if any. */
export function storedAnswer(db: Db, question: string): { text: string; at: number } | undefined {
  const row = db
    .prepare(
      `SELECT a.content AS text, a.created_at AS at FROM messages q JOIN messages a
         ON a.session_id = q.session_id AND a.role = 'assistant'
        AND a.id = (SELECT MIN(id) FROM messages WHERE session_id = q.session_id AND role = 'assistant' AND id > q.id)
       WHERE q.role = 'user' AND q.content = ? ORDER BY a.id DESC LIMIT 1`,
    )
    .get(question) as { text: string; at: number } | undefined;
  return row;
}

/** Whether the service received the question at all (a session holds it). */
export function serviceGot(db: Db, question: string): boolean {
  return db.prepare(`SELECT 1 FROM messages WHERE role = 'user' AND content = ? LIMIT 1`).get(question) !== undefined;
}

const still = (m: FakeMessage): boolean =>
  m.streaming === true || m.text === 'Thinking…' || JSON.stringify(m.blocks).includes('\u258d');

/** Runs of finished messages spelling `answer`, the last one with the answer's buttons. */
function answerRuns(replies: FakeMessage[], answer: string): number {
  let runs = 0;
  for (let start = 0; start < replies.length; start++) {
    for (let end = start + 1; end <= replies.length; end++) {
      const run = replies.slice(start, end);
      if (!sameAnswer(run, answer)) continue;
      if (!run.some(still) && button(run[run.length - 1]!, 'Talk to a human')) runs++;
      break;
    }
  }
  return runs;
}

function rootsOf(fake: FakeSlack, ask: Ask): FakeMessage[] {
  return fake
    .channelMessages(ask.channel)
    .filter((m) => m.user === fake.botUserId && `${m.text}${JSON.stringify(m.blocks)}`.includes(ask.question));
}

/** When the fake received the last successful call touching the thread's root or replies. */
function settledAt(fake: FakeSlack, channel: string, root: string, replies: FakeMessage[]): number {
  const ids = new Set(replies.map((m) => m.ts));
  let at = 0;
  for (const c of fake.calls) {
    const a = c.args as Record<string, unknown>;
    if (c.status !== 200 || String(a.channel ?? '') !== channel) continue;
    if (a.thread_ts === root || ids.has(String(a.ts ?? ''))) at = Math.max(at, c.at);
  }
  return at;
}

/** What the ask's thread shows now. */
export function seen(fake: FakeSlack, ask: Ask, answer: string | undefined): Seen {
  const roots = rootsOf(fake, ask);
  const root = roots[0];
  if (!root) return { outcome: 'pending', roots: 0, answerRuns: 0, settledAt: 0 };
  const replies = fake.replies(ask.channel, root.ts).filter((m) => m.user === fake.botUserId);
  const runs = answer === undefined ? 0 : answerRuns(replies, answer);
  const last = replies.at(-1);
  const marked =
    last !== undefined &&
    !replies.some(still) &&
    /interrupted/i.test(`${last.text}${JSON.stringify(last.blocks)}`) &&
    button(last, 'Retry') !== undefined;
  const outcome: Outcome = runs > 0 ? 'exact' : marked ? 'interrupted' : 'pending';
  return {
    outcome,
    root: root.ts,
    roots: roots.length,
    answerRuns: runs,
    settledAt: settledAt(fake, ask.channel, root.ts, replies),
  };
}
