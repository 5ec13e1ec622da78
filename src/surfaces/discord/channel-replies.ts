/**
 * Where the bot may not start a mention's thread (Discord refuses it: 403 Missing Permissions or
 * Missing Access, or the bot's permissions show it could not write in one), the conversation is
 * answered in the channel as replies to the user's message (`message_reference`) instead of being
 * dropped; a `/ask`'s conversation, as replies to the command's reply (the message that shows the
 * question: DiscordPort.startThread). Its place names that message as a thread marker
 * (`reply:<message>`), so each mention is a conversation of its own, and the port posts its
 * messages in the channel as replies to it.
 *
 * Why the answer is not in a thread is said in one line naming the permission the bot lacks, once
 * per channel a day (the day by the bridge's clock): a mark in the server's part of the store, so
 * every instance and a restart know it was said, and a server that removes the bot takes it along.
 */
import { DiscordAPIError, PermissionFlagsBits, type PermissionsString } from 'discord.js';
import type { Logger } from 'pino';
import type { OutMessage, Place } from '../../core/surface';
import { USER_MESSAGES } from '../../core/user-messages';
import { scoped } from '../../state/tenant-store';
import type { StateStore } from '../../state/store';
import type { ChannelMembers } from './channel-members';
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

/** What of the Discord port the fallback uses (the port owns this object: no import back to it). */
interface RepliesPort {
  readonly members: ChannelMembers | undefined;
  post(place: Place, msg: OutMessage): Promise<unknown>;
  createThread(guild: string, channelId: string, messageId: string, title: string): Promise<string>;
}

export class ChannelReplies {
  constructor(
    private readonly port: RepliesPort,
    private readonly store: StateStore,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The mention's thread; where the bot may not have one, the reply place (and, once a day, why). */
  async placeFor(guild: string, channel: string, messageId: string, title: string): Promise<Place> {
    const lacking = await this.lacksThreadWrite(channel);
    if (!lacking) {
      try {
        const thread = await this.port.createThread(guild, channel, messageId, title);
        return { surface: 'discord', workspace: guild, channel, thread };
      } catch (err) {
        const place = await this.afterRefusal(guild, channel, messageId, err);
        if (!place) throw err;
        return place;
      }
    }
    return this.instead(guild, channel, messageId, lacking);
  }

  /**
   * The permission that keeps the bot from writing in a thread it could make there (such a thread
   * would swallow the answer: it is not made at all); undefined when it may.
   */
  lacksThreadWrite(channel: string): Promise<PermissionsString | undefined> {
    return (
      this.port.members?.botLacks(channel, [PermissionFlagsBits.SendMessagesInThreads]) ?? Promise.resolve(undefined)
    );
  }

  /**
   * Discord refused a thread on `messageId` (`err`): where a refused permission was why, the
   * conversation goes on as replies to that message (and the channel is told why, once a day);
   * undefined for any other error, which the caller raises.
   */
  async afterRefusal(guild: string, channel: string, messageId: string, err: unknown): Promise<Place | undefined> {
    if (!refusedThread(err)) return undefined;
    this.log.info({ err: errInfo(err), channel }, 'discord: no thread allowed here, answering as replies');
    // Discord's refusal names no permission: the bot's own permissions in the channel say which.
    const lacking = (await this.port.members?.botLacks(channel, FOR_THREADS)) ?? 'CreatePublicThreads';
    return this.instead(guild, channel, messageId, lacking);
  }

  /** The reply place of `messageId`, with the why-line said first when today has not heard it. */
  async instead(guild: string, channel: string, messageId: string, lacking: PermissionsString): Promise<Place> {
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
