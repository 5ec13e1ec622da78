/**
 * Where the bot may not start a mention's thread (Discord refuses it: 403 Missing Permissions or
 * Missing Access, or the bot's permissions show it could not write in one), the conversation is
 * answered in the channel as replies to the user's message (`message_reference`) instead of being
 * dropped. Its place names that message as a thread marker (`reply:<message>`), so each mention is a
 * conversation of its own, and the port posts its messages in the channel as replies to it.
 *
 * Why the answer is not in a thread is said in one line naming the permission the bot lacks, once
 * per channel a day (the day by the bridge's clock): a mark in the server's part of the store, so
 * every instance and a restart know it was said, and a server that removes the bot takes it along.
 */
import { DiscordAPIError, PermissionFlagsBits, type PermissionsString } from 'discord.js';
import type { Logger } from 'pino';
import type { Place } from '../../core/surface';
import { USER_MESSAGES } from '../../core/user-messages';
import { scoped } from '../../state/tenant-store';
import type { StateStore } from '../../state/store';
import type { DiscordPort } from './port';
import { discordPart } from './records';
import { errInfo } from './responder';
import { replyPlace } from './reply-place';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a thread needs of the bot, in the order a refusal is explained. */
const FOR_THREADS = [
  PermissionFlagsBits.ViewChannel,
  PermissionFlagsBits.ReadMessageHistory,
  PermissionFlagsBits.CreatePublicThreads,
  PermissionFlagsBits.SendMessagesInThreads,
] as const;

/** Discord's own names for them, as its server settings show them. */
const SHOWN: Partial<Record<PermissionsString, string>> = {
  ViewChannel: 'View Channel',
  ReadMessageHistory: 'Read Message History',
  CreatePublicThreads: 'Create Public Threads',
  SendMessagesInThreads: 'Send Messages in Threads',
};

/** Discord's refusals of a thread for want of a permission: 50013 Missing Permissions, 50001 Missing Access. */
function refusedThread(err: unknown): boolean {
  return err instanceof DiscordAPIError && err.status === 403 && (err.code === 50013 || err.code === 50001);
}

export class ChannelReplies {
  constructor(
    private readonly port: DiscordPort,
    private readonly store: StateStore,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The mention's thread; where the bot may not have one, the reply place (and, once a day, why). */
  async placeFor(guild: string, channel: string, messageId: string, title: string): Promise<Place> {
    // A thread it could make but not write in would swallow the answer: not made at all.
    let lacking = await this.port.members?.botLacks(channel, [PermissionFlagsBits.SendMessagesInThreads]);
    if (!lacking) {
      try {
        const thread = await this.port.createThread(guild, channel, messageId, title);
        return { surface: 'discord', workspace: guild, channel, thread };
      } catch (err) {
        if (!refusedThread(err)) throw err;
        this.log.info({ err: errInfo(err), channel }, 'discord: no thread allowed here, answering as replies');
        // Discord's refusal names no permission: the bot's own permissions in the channel say which.
        lacking = (await this.port.members?.botLacks(channel, FOR_THREADS)) ?? 'CreatePublicThreads';
      }
    }
    const place = replyPlace(guild, channel, messageId);
    await this.tellWhy(place, lacking).catch((err: unknown) =>
      this.log.warn({ err: errInfo(err), channel }, 'discord: could not say why the answer is not in a thread'),
    );
    return place;
  }

  /** The why-line, as a reply to the message, unless it was said in the channel today already. */
  private async tellWhy(place: Place, lacking: PermissionsString): Promise<void> {
    const day = Math.floor(this.now() / DAY_MS);
    const mark = scoped('discord', 'nothread', place.channel, String(day));
    const first = await discordPart(this.store, place.workspace).setIfAbsent(mark, this.now(), 2 * DAY_MS);
    if (!first) return;
    await this.port.post(place, { text: USER_MESSAGES.noThreadHere(SHOWN[lacking] ?? lacking) });
  }
}
