/** Which Discord channels are threads, and their parents: a thread is a channel of its own on Discord. */
import { type REST, Routes } from 'discord.js';
import { z } from 'zod';
import type { StateStore } from '../../state/store';
import type { DiscordGateway } from './gateway';

const THREAD_TTL_MS = 90 * 24 * 3600 * 1000;
const channelSchema = z.object({ id: z.string(), type: z.number(), parent_id: z.string().nullish() });
const THREAD_TYPES = new Set([10, 11, 12]);
/** Channels remembered in memory at most (the oldest forgotten first: the store still knows them). */
const MAX_CACHED = 10_000;

/** Which channels are threads, and their parents: remembered in the store (threads outlive a restart). */
export class Threads {
  private readonly parents = new Map<string, string | null>();

  constructor(
    private readonly rest: REST,
    private readonly store: StateStore,
    /** The surface's one outbound path (a lookup spends the bot's global budget too). */
    private readonly gateway: DiscordGateway,
  ) {}

  async remember(threadId: string, parentId: string): Promise<void> {
    this.cache(threadId, parentId);
    await this.store.set(`discord:thread:${threadId}`, parentId, THREAD_TTL_MS);
  }

  /** The parent channel of a thread; null for a channel that is not a thread. */
  async parentOf(channelId: string): Promise<string | null> {
    const known = this.parents.get(channelId);
    if (known !== undefined) return known;
    const stored = await this.store.get(`discord:thread:${channelId}`);
    if (typeof stored === 'string') {
      this.cache(channelId, stored);
      return stored;
    }
    const ch = channelSchema.safeParse(
      await this.gateway.global({}, () => this.rest.get(Routes.channel(channelId))).catch(() => undefined),
    );
    const parent = ch.success && THREAD_TYPES.has(ch.data.type) && ch.data.parent_id ? ch.data.parent_id : null;
    if (parent) await this.remember(channelId, parent);
    else this.cache(channelId, null);
    return parent;
  }

  /** Channel ids are unique across servers; the memory is bounded (a busy bot sees many servers' threads). */
  private cache(channelId: string, parent: string | null): void {
    this.parents.set(channelId, parent);
    if (this.parents.size > MAX_CACHED) this.parents.delete(this.parents.keys().next().value as string);
  }
}
