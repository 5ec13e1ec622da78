/**
 * The agent experience's suggested prompts about the channel a user is looking at (Slack's
 * app_context_changed): the channel's open ticket first ("Summarise the open ticket"), then the
 * listings the chatbot's recent answers there named ("What's new on <address>?"), else the generic
 * prompts. Everything is read from the tenant's own part of the store: a channel of another tenant
 * finds nothing there, and the surface asks with no channel at all for one it knows is another's.
 * Each prompt's message says everything it is about, since the chatbot knows nothing of tickets.
 */
import type { UnconnectedScope } from '../context';
import { TicketStore } from '../handoff/tickets';
import { channelListings } from '../listings/channel-listings';
import type { AssistantIntro, Place } from '../surface';
import { viewTenants } from '../tenants/offices';
import { GENERIC_PROMPTS, MAX_PROMPTS } from './intro';

/** Slack shows a prompt's title on one short line; its message is sent as the user's words. */
const MAX_TITLE = 40;
const MAX_MESSAGE = 300;

const clip = (s: string, max: number): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
};

/** The newest ticket still open (waiting or claimed) whose conversation or ticket thread is in `place`'s channel. */
async function openTicketIn(ctx: UnconnectedScope, place: Place) {
  const open = await new TicketStore(ctx).of(viewTenants(ctx, ctx.tenant), 'open');
  return open.filter((t) => t.userPlace.channel === place.channel || t.thread?.channel === place.channel).at(-1);
}

/**
 * The prompts for a user of `place`'s tenant looking at `place.channel` (undefined: a channel the
 * surface knows is not the tenant's, or none).
 */
export async function channelPrompts(
  ctx: UnconnectedScope,
  place: Place | undefined,
): Promise<AssistantIntro['prompts']> {
  if (!place) return GENERIC_PROMPTS;
  const prompts: AssistantIntro['prompts'] = [];
  const ticket = await openTicketIn(ctx, place);
  if (ticket)
    prompts.push({
      title: 'Summarise the open ticket',
      message: clip(
        `Summarise this open request for a person, and what I could tell them: ${ticket.reason}`,
        MAX_MESSAGE,
      ),
    });
  for (const address of await channelListings(ctx, place)) {
    if (prompts.length >= MAX_PROMPTS) break;
    prompts.push({
      title: clip(`What's new on ${address}?`, MAX_TITLE),
      message: clip(`What's new on ${address}? Is it still available, and has its price changed?`, MAX_MESSAGE),
    });
  }
  return prompts.length > 0 ? prompts : GENERIC_PROMPTS;
}
