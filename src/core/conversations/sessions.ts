/**
 * The thread <-> chat session map: each conversation's session with the chatbot service, and the
 * chatbot it was opened with (a tenant that connects another chatbot gets a new session), kept in the
 * conversation's tenant's part of the store (a mapping from before an upgrade is moved there when read).
 */
import { oldLayoutMayRemain } from '../../state/old-layout';
import type { TenantScope } from '../context';
import { type Conversation, convKeys, convRef, legacyKeys, type ConvRef } from './model';
import { convView, readMoved } from './records';
import { recordOwnSession } from '../tenants/own-conversations';

/** The conversation's session, if one was opened. */
export async function sessionOf(
  ctx: Pick<TenantScope, 'store'>,
  conv: ConvRef,
  retentionMs: number,
): Promise<number | undefined> {
  const v = await readMoved(
    ctx.store,
    convView(ctx.store, conv),
    convKeys.session(conv.id),
    legacyKeys.session(conv.id),
    retentionMs,
  );
  return typeof v === 'number' ? v : undefined;
}

/**
 * The conversation's chat session with `ctx`'s chatbot (a new one when its tenant changed chatbots).
 * `noneYet`: the caller knows it has none (asked-scopes.ts), so nothing is read first.
 */
export async function ensureSession(
  ctx: TenantScope,
  conv: ConvRef,
  retentionMs: number,
  noneYet = false,
): Promise<number> {
  const view = convView(ctx.store, conv);
  const known = noneYet && !oldLayoutMayRemain(ctx.store) ? undefined : await sessionOf(ctx, conv, retentionMs);
  // Without a session, whose it was need not be read: a new one is opened either way (one of the
  // old layout is still read, which moves it).
  const owner =
    known === undefined && !oldLayoutMayRemain(ctx.store)
      ? undefined
      : await readMoved(
          ctx.store,
          view,
          convKeys.sessionChatbot(conv.id),
          legacyKeys.sessionChatbot(conv.id),
          retentionMs,
        );
  if (known !== undefined && (owner === undefined || owner === ctx.chatbot.chatbotId)) return known;
  const sessionId = await ctx.chatbot.client.getSession(ctx.chatbot.chatbotId);
  await view.set(convKeys.session(conv.id), sessionId, retentionMs);
  await view.set(convKeys.sessionChatbot(conv.id), ctx.chatbot.chatbotId, retentionMs);
  // Where tenants share a chatbot, /history and /analytics show a tenant only the sessions noted as its own.
  await recordOwnSession(ctx, sessionId);
  return sessionId;
}

/** Activity in the conversation: its session mapping lives another retention period. */
export async function touchSession(ctx: Pick<TenantScope, 'store'>, conv: ConvRef, retentionMs: number): Promise<void> {
  const view = convView(ctx.store, conv);
  // A touch each (one command, no read): an absent mapping stays absent.
  for (const key of [convKeys.session(conv.id), convKeys.sessionChatbot(conv.id)]) await view.touch(key, retentionMs);
}

/**
 * One turn's way to its session (TurnAnswerer's `session`): `noneYet` holds for its first call only
 * (a turn that asks again finds the session that call opened).
 */
export function sessionsOf(
  ctx: TenantScope,
  retentionMs: number,
  noneYet: boolean,
): (conv: Pick<Conversation, 'id' | 'place'>) => Promise<number> {
  let none = noneYet;
  return (conv) => {
    const first = none;
    none = false;
    return ensureSession(ctx, convRef(conv), retentionMs, first);
  };
}
