/**
 * Threads the Discord port starts for conversations: on the message that opens one (Discord gives
 * the thread that message's id, so a repeat finds the same thread), or, where that message cannot
 * carry one, a public thread of its own beside it. Each is remembered as a thread of its channel.
 */
import { DiscordAPIError, type REST, Routes } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { PlatformRateLimitError } from '../../core/surface';
import type { DiscordGateway } from './gateway';
import { errSummary, toRateLimitError } from './rest-errors';
import type { Threads } from './threads';

const idSchema = z.object({ id: z.string() });
const PUBLIC_THREAD = 11;

function threadName(title: string): string {
  return title.replace(/\s+/g, ' ').trim().slice(0, 100) || 'Conversation';
}

export class ThreadMaker {
  constructor(
    private readonly rest: REST,
    private readonly gateway: DiscordGateway,
    private readonly threads: Threads,
    private readonly log: Logger,
  ) {}

  /** A thread on a message; Discord gives it the message's id, so a repeat finds the same one. */
  async onMessage(guild: string, channelId: string, messageId: string, title: string): Promise<string> {
    let threadId: string;
    try {
      const res = await this.gateway.global({}, () =>
        this.rest.post(Routes.threads(channelId, messageId), {
          body: { name: threadName(title), auto_archive_duration: 1440 },
        }),
      );
      threadId = idSchema.parse(res).id;
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === 160004) threadId = messageId;
      else throw err;
    }
    await this.threads.remember(guild, threadId, channelId);
    return threadId;
  }

  /**
   * A thread on a message, or, when the message cannot carry one (Discord refused it), a public
   * thread of its own in the channel: the conversation needs a thread either way.
   */
  async onMessageOrBeside(guild: string, channelId: string, messageId: string, title: string): Promise<string> {
    try {
      return await this.onMessage(guild, channelId, messageId, title);
    } catch (err) {
      const e = toRateLimitError(err);
      // A refused permission (403) would refuse a thread of its own too: the caller decides.
      if (e instanceof PlatformRateLimitError || !(err instanceof DiscordAPIError) || err.status >= 500) throw e;
      if (err.status === 403) throw err;
      this.log.warn({ err: errSummary(err) }, 'discord: no thread on the message, starting a thread of its own');
    }
    try {
      const res = await this.gateway.global({}, () =>
        this.rest.post(Routes.threads(channelId), {
          body: { name: threadName(title), type: PUBLIC_THREAD, auto_archive_duration: 1440 },
        }),
      );
      const threadId = idSchema.parse(res).id;
      await this.threads.remember(guild, threadId, channelId);
      return threadId;
    } catch (err) {
      throw toRateLimitError(err);
    }
  }
}
