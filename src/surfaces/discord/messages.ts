/**
 * Messages in (Events.MessageCreate): a message in a thread continues its conversation, a mention
 * in a channel starts one in a new thread on that message (or, where the bot may not make one, as
 * replies to it: channel-replies.ts), and a direct message to the bot is a
 * conversation in the DM (direct-messages.ts). Bots, webhooks and system messages are not for the
 * bridge.
 */
import { requestTenant } from '../../core/tenants/tenant';
import { MessageType, type Message } from 'discord.js';
import type { Attachment, IncomingMessage, Place } from '../../core/surface';
import type { Inbound } from './inbound';
import { errInfo } from './responder';
import { untrusted } from '../../core/text/untrusted';

/** Plain messages and replies; system messages (thread created, pins, joins) are not for the bot. */
const USER_MESSAGE_TYPES = new Set<MessageType>([MessageType.Default, MessageType.Reply]);

function attachmentsOf(m: Message): Attachment[] {
  return m.attachments.map((a) => ({
    id: a.id,
    name: a.name,
    mime: a.contentType ?? undefined,
    size: a.size,
    url: a.url,
  }));
}

export class Messages {
  constructor(private readonly inb: Inbound) {}

  /** The MessageCreate listener: never throws. */
  handle(m: Message): void {
    this.receive(m).catch((err: unknown) =>
      this.inb.log.error({ err: errInfo(err) }, 'discord: message handling failed'),
    );
  }

  private async receive(m: Message): Promise<void> {
    const core = this.inb.core();
    const botId = this.inb.botId();
    if (!core || m.author.bot || m.webhookId || m.author.id === botId || !USER_MESSAGE_TYPES.has(m.type)) return;
    const mentioned =
      m.mentions.users.has(botId) || m.content.includes(`<@${botId}>`) || m.content.includes(`<@!${botId}>`);
    // Cut at Discord's own maximum for a message (4,000 characters with Nitro), should one come longer.
    const text = untrusted(m.content.split(`<@${botId}>`).join('').split(`<@!${botId}>`).join('').trim(), 4000);
    const place = await this.placeOf(m, mentioned, text);
    if (!place) return;
    const actor = await this.inb.people.actorOf(m.author, m.member);
    // Who and where, once: the guild is the tenant (a DM's '@me'); the answer is for the writer
    // until core finds the conversation's asker.
    const msg: IncomingMessage = {
      tenant: requestTenant(place),
      surface: this.inb.surface,
      place,
      actor,
      for: { id: actor.id, name: actor.name },
      text,
      id: m.id,
      attachments: attachmentsOf(m),
      startsConversation: mentioned || !m.inGuild(),
    };
    await core.message(msg, this.inb.surface);
  }

  /** The conversation's place; undefined for channel chatter that is not for the bot. */
  private async placeOf(m: Message, mentioned: boolean, text: string): Promise<Place | undefined> {
    if (!m.inGuild()) return this.inb.dms.placeForMessage(m.channelId, m.id);
    const parent = await this.inb.threads.parentOf(m.guildId, m.channelId);
    if (parent) return { surface: 'discord', workspace: m.guildId, channel: parent, thread: m.channelId };
    if (!mentioned) return undefined;
    // A thread on the message; where the bot may not make one, replies to it in the channel.
    return this.inb.replies.placeFor(m.guildId, m.channelId, m.id, text || 'Conversation');
  }
}
