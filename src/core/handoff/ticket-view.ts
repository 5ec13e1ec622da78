/**
 * The ticket message as the handoff channel shows it: who the user is (a mention on their own
 * platform, name and platform across surfaces), the lead summary and the transcript, rendered for
 * the handoff surface (render.ts). Also the posting of the ticket message, with the user's
 * conversation in words and a link (never raw ids).
 */
import { type CoreContext, surfaceAt } from '../context';
import type { Turn } from '../conversations/model';
import { readTranscript } from '../conversations/transcript';
import type { MessageRef, OutMessage, Place, SurfacePort } from '../surface';
import { leadSummary, type LeadSummary } from './lead';
import { factsOfTurns, readLeadFacts } from './lead-store';
import { ticketConv, type Ticket } from './model';
import { openedListings } from './opened';
import { renderTicket } from './render';
import { asText } from './wording';
import type { TicketStore } from './tickets';

/** A platform nicety (a link, a name) that must not fail what it decorates. */
export async function quietly<T>(
  ctx: CoreContext,
  fn: () => Promise<T> | T | undefined,
  what: string,
): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    ctx.log.warn({ err, what }, `handoff: ${what} failed`);
    return undefined;
  }
}

export function surfaceLabel(s: Place['surface']): string {
  return s === 'slack' ? 'Slack' : s === 'discord' ? 'Discord' : s;
}

/**
 * The lead summary of a ticket's conversation (deterministic: see lead.ts): the facts gathered as
 * the whole conversation went (lead-store.ts), or, for one from before they were kept, those of the
 * turns its transcript still holds.
 */
export async function leadOf(ctx: CoreContext, ticket: Ticket, transcript?: Turn[]): Promise<LeadSummary> {
  const facts =
    (await readLeadFacts(ctx.store, ticketConv(ticket))) ??
    factsOfTurns(transcript ?? (await readTranscript(ctx.store, ticketConv(ticket))));
  const opened = await openedListings(ctx.store, ticket.userPlace.surface, ticket.user.id);
  return leadSummary(ticket.user.name, facts, opened);
}

export async function renderFor(ctx: CoreContext, ticket: Ticket, handoffSurface: SurfacePort): Promise<OutMessage> {
  const userSurface = ctx.surfaces.get(ticket.userPlace.surface);
  // A mention only notifies on its own platform; across surfaces, the name and platform say who.
  const label =
    userSurface && userSurface.name === handoffSurface.name
      ? `${userSurface.mention(ticket.user)} (${asText(ticket.user.name)})`
      : `${asText(ticket.user.name)} (${surfaceLabel(ticket.userPlace.surface)} user)`;
  const transcript = await readTranscript(ctx.store, ticketConv(ticket));
  return renderTicket(ticket, {
    userLabel: label,
    transcript,
    lead: await leadOf(ctx, ticket, transcript),
    maxLength: handoffSurface.limits.maxMessageLength,
    now: ctx.now(),
  });
}

/** The ticket message as the ticket is now: where it is and what it shows (undefined: not posted yet). */
export async function ticketView(
  ctx: CoreContext,
  tickets: TicketStore,
  id: string,
): Promise<{ root: MessageRef; msg: OutMessage } | undefined> {
  const ticket = await tickets.load(id);
  if (!ticket?.root) return undefined;
  return { root: ticket.root, msg: await renderFor(ctx, ticket, surfaceAt(ctx, ticket.root.place)) };
}

/** Posts the ticket message in `channel`, first learning the user conversation's link and channel name. */
export async function startTicket(
  ctx: CoreContext,
  tickets: TicketStore,
  ticketId: string,
  channel: Place,
  title: string,
): Promise<{ root: MessageRef; thread: Place }> {
  const ticket = await tickets.load(ticketId);
  if (!ticket) throw new Error(`ticket ${ticketId} is gone`);
  const handoffSurface = surfaceAt(ctx, channel);
  let shown = ticket;
  if (!ticket.userLink && !ticket.userChannelName) {
    const userSurface = surfaceAt(ctx, ticket.userPlace);
    const [userLink, userChannelName] = await Promise.all([
      quietly(ctx, () => userSurface.directory.permalink(rootOf(ticket.userPlace)), 'permalink'),
      quietly(ctx, () => userSurface.directory.channelName(ticket.userPlace), 'channel name'),
    ]);
    if (userLink || userChannelName) {
      shown =
        (await tickets.update(ticketId, (t) => ({
          ...t,
          ...(userLink ? { userLink } : {}),
          ...(userChannelName ? { userChannelName } : {}),
        }))) ?? ticket;
    }
  }
  return handoffSurface.startThread(channel, await renderFor(ctx, shown, handoffSurface), title);
}

/** The message a conversation thread hangs on (Slack: the root's ts; Discord: the thread, named after its root). */
function rootOf(place: Place): { place: Place; id: string } {
  return {
    place: { surface: place.surface, workspace: place.workspace, channel: place.channel },
    id: place.thread ?? '',
  };
}
