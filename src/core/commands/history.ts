/**
 * `/history [user id | conversation id]` (admins): a user's conversations through
 * /v1/users/{id}/conversations, or one conversation's transcript.
 */
import { ServiceError } from '../../service/errors';
import type { V1Conversation } from '../../service/schemas/v1';
import type { CoreContext } from '../context';
import { recentLines } from '../recent-lines';
import type { Invocation } from '../surface';
import { UsageError, tokenize } from './grammar';
import { usageOf } from './catalogue';
import { guardedCommand, requireAdmin } from './respond';

const USAGE = usageOf('history');
const LIST_LIMIT = 20;

export type HistoryTarget = { kind: 'user' | 'conversation' | 'either'; id: string };

export function parseHistoryArgs(args: string, self: string): HistoryTarget {
  const tokens = tokenize(args);
  if (tokens.length === 0) return { kind: 'user', id: self };
  const [t] = tokens;
  if (tokens.length > 1 || !t) throw new UsageError(`Give one id; unexpected "${args.trim()}".`, USAGE);
  const id = t.value.trim();
  if (t.key === undefined) {
    if (id.includes('/')) throw new UsageError(`"${id}" is not an id (ids have no "/").`, USAGE);
    return { kind: 'either', id };
  }
  const key = t.key.toLowerCase();
  const kind = key === 'user' ? 'user' : key === 'conversation' || key === 'conv' ? 'conversation' : undefined;
  if (!kind) throw new UsageError(`Unknown option "${t.key}:"; use user:<id> or conversation:<id>.`, USAGE);
  if (id === '' || id.includes('/'))
    throw new UsageError(`${kind}: give an id, e.g. ${kind}:${kind === 'user' ? 'U123' : '42'}.`, USAGE);
  return { kind, id };
}

const day = (iso: string | undefined): string => (iso ? iso.slice(0, 10) : 'unknown date');

function isNotFound(err: unknown): boolean {
  return (
    err instanceof ServiceError &&
    (err.httpStatus === 404 || err.code === 404 || /not.?found|unknown/i.test(err.message))
  );
}

/** The transcript, keeping the latest messages when it outgrows one message. */
export function transcriptText(c: V1Conversation, maxLength: number): string {
  const head = `Conversation ${c.id} (${c.status}, ${c.messages?.length ?? 0} messages, started ${day(c.createdAt)})`;
  const lines = (c.messages ?? []).map((m) => `${m.role}: ${m.content}`);
  if (lines.length === 0) return `${head}\nNo messages.`;
  const omitted = '(earlier messages omitted)';
  const budget = Math.max(200, maxLength - head.length - omitted.length - 4);
  const kept = recentLines(lines, budget);
  if (kept.length === 0) kept.push(`${(lines[lines.length - 1] ?? '').slice(0, budget - 1)}…`);
  return [head, ...(kept.length < lines.length ? [omitted] : []), ...kept].join('\n');
}

async function userHistory(
  ctx: CoreContext,
  inv: Invocation,
  userId: string,
  self: boolean,
  triedConversation: boolean,
): Promise<void> {
  const res = await ctx.client.v1.userConversations(userId, { limit: LIST_LIMIT });
  const who = self ? `you (${userId})` : `user ${userId}`;
  if (res.items.length === 0) {
    const also = triedConversation ? ` (and no conversation has id ${userId})` : '';
    await inv.reply({ text: `No conversations found for ${who}${also}.` }, { ephemeral: true });
    return;
  }
  const lines = res.items.map(
    (c) => `• ${c.id} — ${c.status} — ${c.messageCount ?? c.messages?.length ?? 0} messages — ${day(c.createdAt)}`,
  );
  const more = res.meta.total > res.items.length ? `\n(${res.items.length} of ${res.meta.total} shown)` : '';
  await inv.reply(
    { text: `Conversations of ${who}:\n${lines.join('\n')}${more}\nShow one with /history conversation:<id>.` },
    { ephemeral: true },
  );
}

async function run(ctx: CoreContext, inv: Invocation, args: string): Promise<void> {
  requireAdmin(inv, 'read conversation history');
  const target = parseHistoryArgs(args, inv.actor.id);
  if (target.kind !== 'user') {
    try {
      const conv = await ctx.client.v1.getConversation(target.id, { includeMessages: true });
      await inv.reply({ text: transcriptText(conv, inv.surface.limits.maxMessageLength) }, { ephemeral: true });
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (target.kind === 'conversation') {
        await inv.reply(
          { text: `No conversation has id ${target.id}. List a user's with /history user:<id>.` },
          { ephemeral: true },
        );
        return;
      }
      // Not a conversation: read the id as a user's.
    }
  }
  await userHistory(ctx, inv, target.id, args.trim() === '', target.kind === 'either');
}

export const historyCommand = guardedCommand('history', {
  body: run,
});
