/**
 * `/history [user id | conversation id]` (admins): a user's conversations through
 * /v1/users/{id}/conversations, or one conversation's transcript. A workspace on the deployment's
 * shared chatbot (tenants/shared-chatbot.ts) sees only the conversations the bridge opened for it.
 */
import { ServiceError } from '../../service/errors';
import type { V1Conversation } from '../../service/schemas/v1';
import type { TenantScope } from '../context';
import { recentLines } from '../recent-lines';
import { ownConversations, ownsConversation } from '../tenants/own-conversations';
import { onSharedChatbot } from '../tenants/shared-chatbot';
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

/**
 * What an admin may see of the chatbot: all of it, or (on the deployment's shared chatbot) only the
 * conversations the bridge opened for this tenant; any other is answered as if it did not exist.
 */
interface Sight {
  /** The chatbot is shared: only the tenant's own conversations are seen. */
  shared: boolean;
  owns(id: string): Promise<boolean>;
  /** The tenant's own conversation ids, newest first (shared only). */
  own(): Promise<string[]>;
}

const WHOLE: Sight = { shared: false, owns: async () => true, own: async () => [] };

async function sightOf(ctx: TenantScope, inv: Invocation): Promise<Sight> {
  if (!onSharedChatbot(ctx)) return WHOLE;
  const tenant = inv.tenant;
  const chatbotId = ctx.chatbot.chatbotId;
  return {
    shared: true,
    owns: (id) => ownsConversation(ctx, tenant, chatbotId, id),
    own: async () => (await ownConversations(ctx, tenant, chatbotId)).map((c) => c.id),
  };
}

/** The conversation with its messages; undefined when there is none the admin may see. */
async function conversationOf(ctx: TenantScope, sight: Sight, id: string): Promise<V1Conversation | undefined> {
  return (await sight.owns(id)) ? fetchConversation(ctx, id) : undefined;
}

async function fetchConversation(ctx: TenantScope, id: string): Promise<V1Conversation | undefined> {
  try {
    return await ctx.chatbot.client.v1.getConversation(id, { includeMessages: true });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    return undefined;
  }
}

const line = (c: V1Conversation): string =>
  `• ${c.id} — ${c.status} — ${c.messageCount ?? c.messages?.length ?? 0} messages — ${day(c.createdAt)}`;

async function userHistory(
  ctx: TenantScope,
  inv: Invocation,
  sight: Sight,
  target: { userId: string; self: boolean; triedConversation: boolean },
): Promise<void> {
  const { userId, self, triedConversation } = target;
  // On a shared chatbot the user's conversations are looked through for the tenant's (the service's page is at most 100).
  const res = await ctx.chatbot.client.v1.userConversations(userId, { limit: sight.shared ? 100 : LIST_LIMIT });
  const mine = sight.shared ? new Set(await sight.own()) : undefined;
  const items = mine ? res.items.filter((c) => mine.has(c.id)) : res.items;
  const total = mine ? items.length : res.meta.total;
  const shown = items.slice(0, LIST_LIMIT);
  const who = self ? `you (${userId})` : `user ${userId}`;
  if (shown.length === 0) {
    const also = triedConversation ? ` (and no conversation has id ${userId})` : '';
    await inv.reply({ text: `No conversations found for ${who}${also}.` }, { ephemeral: true });
    return;
  }
  const more = total > shown.length ? `\n(${shown.length} of ${total} shown)` : '';
  await inv.reply(
    {
      text: `Conversations of ${who}:\n${shown.map(line).join('\n')}${more}\nShow one with /history conversation:<id>.`,
    },
    { ephemeral: true },
  );
}

/** `/history` on a shared chatbot: the conversations the bridge opened for this workspace, newest first. */
async function tenantHistory(ctx: TenantScope, inv: Invocation, ids: string[]): Promise<void> {
  const shown: V1Conversation[] = [];
  for (const id of ids.slice(0, LIST_LIMIT)) {
    const c = await fetchConversation(ctx, id);
    if (c) shown.push(c);
  }
  if (shown.length === 0) {
    await inv.reply({ text: 'No conversations found for this workspace.' }, { ephemeral: true });
    return;
  }
  const more = ids.length > LIST_LIMIT ? `\n(${LIST_LIMIT} of ${ids.length} shown)` : '';
  await inv.reply(
    {
      text: `Conversations of this workspace:\n${shown.map(line).join('\n')}${more}\nShow one with /history conversation:<id>.`,
    },
    { ephemeral: true },
  );
}

async function run(ctx: TenantScope, inv: Invocation, args: string): Promise<void> {
  requireAdmin(inv, 'read conversation history');
  const target = parseHistoryArgs(args, inv.actor.id);
  const sight = await sightOf(ctx, inv);
  if (target.kind !== 'user') {
    const conv = await conversationOf(ctx, sight, target.id);
    if (conv) {
      await inv.reply({ text: transcriptText(conv, inv.surface.limits.maxMessageLength) }, { ephemeral: true });
      return;
    }
    if (target.kind === 'conversation') {
      // The same words whether the id is unknown or another tenant's: nothing says it exists.
      await inv.reply(
        { text: `No conversation has id ${target.id}. List a user's with /history user:<id>.` },
        { ephemeral: true },
      );
      return;
    }
    // Not a conversation: read the id as a user's.
  }
  const self = args.trim() === '';
  // The invoker's own service conversations on a shared chatbot are none the bridge opened: the workspace's are listed.
  if (self && sight.shared) return tenantHistory(ctx, inv, await sight.own());
  await userHistory(ctx, inv, sight, { userId: target.id, self, triedConversation: target.kind === 'either' });
}

export const historyCommand = guardedCommand('history', {
  body: run,
});
