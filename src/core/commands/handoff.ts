import type { Conversations } from '../conversations/engine';
import { convRef, type Conversation } from '../conversations/model';
import type { CommandHandler, TenantScope } from '../context';
import type { Handoffs } from '../handoff/handoffs';
import { HANDOFF_ACTIONS, HANDOFF_SURVEY_FORM } from '../handoff/model';
import { openSurvey, submitSurvey } from '../handoff/survey';
import {
  LINK_TALK_ACTION,
  LINK_VIEWING_ACTION,
  LISTING_TALK_ACTION,
  VIEWING_ACTION,
  viewingName,
} from '../listings/card-actions';
import { listingById } from '../listings/url-index';
import { USER_MESSAGES } from '../user-messages';
import type { Invocation } from '../surface';
import { splitHead, tokenize } from './grammar';
import { handoffSettings, submitHandoffSettingsForm } from './handoff-settings';
import { HANDOFF_SETTINGS_FORM } from './handoff-settings-form';
import { guarded } from './respond';

const NO_CONVERSATION =
  'There is no conversation of yours here to hand off. Start one with /ask, then use /handoff in its thread.';

/**
 * In a conversation thread, that thread's conversation (whoever started it: the state machine
 * refuses a bystander); in a channel, the invoker's most recent conversation there that they started.
 */
async function conversationOf(conversations: Conversations, inv: Invocation): Promise<Conversation | undefined> {
  if (inv.place.thread) {
    const here = await conversations.find(inv.place);
    if (here) return here;
  }
  const recent = await conversations.recentFor(inv, inv.actor.id);
  return recent && (recent.asker === undefined || recent.asker.id === inv.actor.id) ? recent : undefined;
}

/** `/handoff away|back`: an agent's availability for round-robin offers (stored, shown in the queue and App Home). */
async function setAvailability(handoffs: Handoffs, inv: Invocation, away: boolean): Promise<void> {
  const refused = await handoffs.refusal('availability', inv);
  if (refused) {
    await inv.reply({ text: refused }, { ephemeral: true });
    return;
  }
  // In the actor's own tenant: the agents of their workspace's (server's) handoff channel.
  await handoffs.hours.roster(inv.tenant).setAway(inv.surface.name, inv.actor, away);
  await inv.reply(
    {
      text: away
        ? 'You are away: new tickets are not offered to you (you may still claim any). Use /handoff back when you return.'
        : 'You are back: new tickets are offered to you in turn again.',
    },
    { ephemeral: true },
  );
}

/** `/handoff cancel`: the conversation's handoff called off (by its asker or an admin: the table says). */
async function cancelHandoff(handoffs: Handoffs, inv: Invocation, conv: Conversation): Promise<void> {
  const ticket = await handoffs.activeTicket(convRef(conv));
  if (!ticket) {
    await inv.reply(
      { text: 'This conversation is not with a human, so there is nothing to cancel.' },
      { ephemeral: true },
    );
    return;
  }
  if (await handoffs.end(ticket.id, 'cancelled', inv))
    await inv.reply({ text: 'Handoff cancelled: the bot answers in that thread again.' }, { ephemeral: true });
}

/**
 * `/handoff settings [<name> <value>]` as typed, or as Discord's options render it
 * (`setting:<name> value:<value>`); undefined: not the settings.
 */
function settingsArgs(args: string): string | undefined {
  const { head, rest } = splitHead(args);
  if (head.toLowerCase() === 'settings') return rest.trim();
  // Only Discord's options say `setting:` (a reason with a stray quote is never tokenized).
  if (!/(^|\s)setting:/i.test(args)) return undefined;
  const tokens = tokenize(args);
  const setting = tokens.find((t) => t.key?.toLowerCase() === 'setting')?.value;
  if (setting === undefined) return undefined;
  const value = tokens.find((t) => t.key?.toLowerCase() === 'value')?.value ?? '';
  return `${setting} ${value}`.trim();
}

/** `/handoff [reason|cancel|queue|away|back|settings]`. */
async function runHandoff(
  ctx: TenantScope,
  conversations: Conversations,
  handoffs: Handoffs,
  inv: Invocation,
  args: string,
): Promise<void> {
  const reason = args.trim();
  const word = reason.toLowerCase();
  const settings = settingsArgs(reason);
  // A bad name or value is answered with what was wrong and the usage (guarded), as /chatbot's are.
  if (settings !== undefined) return guarded(ctx, inv, 'handoff', () => handoffSettings(ctx, inv, settings));
  if (word === 'queue') {
    const refused = await handoffs.refusal('queue', inv);
    await inv.reply(refused ? { text: refused } : await handoffs.queueMessage(inv.tenant), {
      ephemeral: true,
    });
    return;
  }
  if (word === 'away' || word === 'back') return setAvailability(handoffs, inv, word === 'away');
  const conv = await conversationOf(conversations, inv);
  if (!conv) return void (await inv.reply({ text: NO_CONVERSATION }, { ephemeral: true }));
  if (word === 'cancel') return cancelHandoff(handoffs, inv, conv);
  const refused = await handoffs.request(conv, inv.actor, inv.surface, reason || 'Asked for a human with /handoff');
  await inv.reply(
    { text: refused ?? 'A human agent has been asked to join your conversation thread.' },
    { ephemeral: true },
  );
}

const ASKED = {
  viewing: {
    question: (l: string) => `I'd like to schedule a viewing of ${l}.`,
    reason: (l: string) => `Viewing request: ${l}`,
    told: (l: string) =>
      `An agent has been asked to arrange a viewing of ${l}; they will reply in your conversation thread.`,
  },
  talk: {
    question: (l: string) => `I'd like to talk to someone about ${l}.`,
    reason: (l: string) => `Asked about ${l}`,
    told: (l: string) => `A human agent has been asked about ${l}; they will reply in your conversation thread.`,
  },
} as const;

/**
 * A listing's "Ask about a viewing" or "Talk to a human": in the user's conversation here, or a new
 * one about the listing (its root quotes the question, the bot answers it), handed to a human.
 */
async function askAbout(
  conversations: Conversations,
  handoffs: Handoffs,
  inv: Invocation,
  listing: string,
  kind: keyof typeof ASKED,
): Promise<void> {
  const words = ASKED[kind];
  const conv =
    (await conversationOf(conversations, inv)) ?? (await conversations.startFromCommand(inv, words.question(listing)));
  const refused = await handoffs.request(conv, inv.actor, inv.surface, words.reason(listing));
  await inv.reply({ text: refused ?? words.told(listing) }, { ephemeral: true });
}

/** The listing `id` names, if it is one of the tenant's chatbot's (else the presser is told, once). */
async function tenantListing(ctx: TenantScope, inv: Invocation, id: string): Promise<string | undefined> {
  const l = await listingById(ctx, id);
  if (!l) await inv.reply({ text: USER_MESSAGES.notOurListing }, { ephemeral: true });
  return l ? viewingName(l) : undefined;
}

export function handoffCommand(conversations: Conversations, handoffs: Handoffs): CommandHandler {
  return {
    run: (ctx, inv, args) => runHandoff(ctx, conversations, handoffs, inv, args),
    actions: {
      [HANDOFF_ACTIONS.request]: async (_ctx, inv, convId) => {
        const conv = await conversations.load({ tenant: inv.tenant, id: convId });
        if (!conv) {
          await inv.reply(
            { text: 'This conversation is no longer known; start a new one with /ask.' },
            { ephemeral: true },
          );
          return;
        }
        const refused = await handoffs.request(conv, inv.actor, inv.surface, 'Pressed "Talk to a human"');
        if (refused) await inv.reply({ text: refused }, { ephemeral: true });
      },
      // "Ask about a viewing" on a listing card: the value names the listing.
      [VIEWING_ACTION]: async (_ctx, inv, listing) => askAbout(conversations, handoffs, inv, listing, 'viewing'),
      // "Talk to a human" on a link's preview posted before its actions carried the id.
      [LISTING_TALK_ACTION]: async (_ctx, inv, listing) => askAbout(conversations, handoffs, inv, listing, 'talk'),
      // A listing link's actions (Work Object flexpane, classic unfurl): the value is the listing's id.
      [LINK_VIEWING_ACTION]: async (ctx, inv, id) => {
        const listing = await tenantListing(ctx, inv, id);
        if (listing) await askAbout(conversations, handoffs, inv, listing, 'viewing');
      },
      [LINK_TALK_ACTION]: async (ctx, inv, id) => {
        const listing = await tenantListing(ctx, inv, id);
        if (listing) await askAbout(conversations, handoffs, inv, listing, 'talk');
      },
      [HANDOFF_ACTIONS.claim]: async (_ctx, inv, ticketId) => handoffs.claim(inv, ticketId),
      [HANDOFF_ACTIONS.close]: async (_ctx, inv, ticketId) => {
        await handoffs.end(ticketId, 'closed', inv);
      },
      [HANDOFF_ACTIONS.cancel]: async (_ctx, inv, ticketId) => {
        await handoffs.end(ticketId, 'cancelled', inv);
      },
      [HANDOFF_ACTIONS.release]: async (_ctx, inv, ticketId) => handoffs.release(inv, ticketId),
      [HANDOFF_ACTIONS.takeover]: async (_ctx, inv, ticketId) => handoffs.askTakeOver(inv, ticketId),
      [HANDOFF_ACTIONS.takeoverConfirm]: async (_ctx, inv, value) => handoffs.takeOver(inv, value),
      [HANDOFF_ACTIONS.rate]: async (_ctx, inv, value) => handoffs.rate(inv, value),
      [HANDOFF_ACTIONS.survey]: async (_ctx, inv, ticketId) => openSurvey(handoffs, inv, ticketId),
    },
    forms: {
      [HANDOFF_SURVEY_FORM]: async (_ctx, inv, ticketId, values) => submitSurvey(handoffs, inv, ticketId, values),
      [HANDOFF_SETTINGS_FORM]: submitHandoffSettingsForm,
    },
  };
}
