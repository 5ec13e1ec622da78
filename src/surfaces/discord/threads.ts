/**
 * Which Discord channels are threads, and their parents: a thread is a channel of its own on Discord.
 *
 * Kept in the state store only (`discord:thread:<channel>` in the server's part: the parent, or ''
 * for a channel that is no thread), not in this process: every instance then knows a thread the
 * bridge started on another, and a server that removes the bot takes them with its part. Read once per guild message; Discord is asked only
 * for a channel the store does not know yet.
 */
import { DiscordAPIError, type REST, Routes } from 'discord.js';
import { z } from 'zod';
import { readMoving, writeMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { discordRecords } from './records';
import type { DiscordGateway } from './gateway';

const THREAD_TTL_MS = 90 * 24 * 3600 * 1000;
const channelSchema = z.object({ id: z.string(), type: z.number(), parent_id: z.string().nullish() });
const THREAD_TYPES = new Set([10, 11, 12]);
/** How long a channel Discord refused to show is taken for no thread. */
const REFUSED_TTL_MS = 3600 * 1000;
/** The stored value of a channel that is not a thread (a channel's kind never changes). */
const NOT_A_THREAD = '';

export class Threads {
  constructor(
    private readonly rest: REST,
    private readonly store: StateStore,
    /** The surface's one outbound path (a lookup spends the bot's global budget too). */
    private readonly gateway: DiscordGateway,
  ) {}

  async remember(guild: string, threadId: string, parentId: string): Promise<void> {
    const r = discordRecords.thread(this.store, guild, threadId);
    await writeMoving(this.store, r.view, r.key, r.legacy, parentId, THREAD_TTL_MS);
  }

  /** The parent channel of a thread; null for a channel that is not a thread (or that Discord would not show). */
  async parentOf(guild: string, channelId: string): Promise<string | null> {
    const r = discordRecords.thread(this.store, guild, channelId);
    const stored = await readMoving(this.store, r.view, r.key, r.legacy, THREAD_TTL_MS);
    if (typeof stored === 'string') return stored === NOT_A_THREAD ? null : stored;
    let got: unknown;
    try {
      got = await this.gateway.global({}, () => this.rest.get(Routes.channel(channelId)));
    } catch (err) {
      // Refused (no access, no such channel): kept a while, since Discord counts refused calls against
      // the bot. Anything else (unreachable, a 5xx) is asked again next time.
      const refused = err instanceof DiscordAPIError && (err.status === 403 || err.status === 404);
      if (refused) await r.view.set(r.key, NOT_A_THREAD, REFUSED_TTL_MS);
      return null;
    }
    const ch = channelSchema.safeParse(got);
    if (!ch.success) return null;
    const parent = THREAD_TYPES.has(ch.data.type) && ch.data.parent_id ? ch.data.parent_id : null;
    await this.remember(guild, channelId, parent ?? NOT_A_THREAD);
    return parent;
  }
}
