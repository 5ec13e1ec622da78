/**
 * Display names of Slack users (users.info through the gateway, on its Tier 4 budget), cached so a
 * busy thread costs one lookup per user.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SlackGateway } from './gateway';

const userInfoSchema = z.object({
  user: z.object({
    name: z.string().nullish(),
    real_name: z.string().nullish(),
    profile: z.object({ display_name: z.string().nullish(), real_name: z.string().nullish() }).nullish(),
  }),
});

const TTL_MS = 10 * 60 * 1000;
/**
 * A failed lookup is not retried for this long: without users:read, or where users.info does not
 * exist, every message would otherwise wait for a failing call (and the client's retries) again.
 */
const FAILED_TTL_MS = 60 * 1000;
const MAX_CACHED = 10_000;

export class UserNames {
  /** Per user: the name users.info gave, or undefined when it gave none (the caller's fallback then). */
  private readonly cache = new Map<string, { until: number; name: Promise<string | undefined> }>();

  constructor(
    private readonly gateway: SlackGateway,
    private readonly log: Logger,
  ) {}

  /** The user's display name; `fallback` (e.g. a slash command's user_name) or the id when unknown. */
  async name(userId: string, fallback?: string): Promise<string> {
    const hit = this.cache.get(userId);
    const known = hit && Date.now() < hit.until ? hit.name : this.fetch(userId);
    return (await known) ?? fallback ?? userId;
  }

  private fetch(userId: string): Promise<string | undefined> {
    const entry = { until: Date.now() + TTL_MS, name: Promise.resolve<string | undefined>(undefined) };
    entry.name = this.lookup(userId).catch((err: unknown) => {
      this.log.debug({ err, userId }, 'slack: users.info failed');
      entry.until = Date.now() + FAILED_TTL_MS;
      return undefined;
    });
    this.cache.delete(userId);
    this.cache.set(userId, entry);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    return entry.name;
  }

  private async lookup(userId: string): Promise<string | undefined> {
    const res = userInfoSchema.safeParse(await this.gateway.userInfo(userId));
    if (!res.success) return undefined;
    const u = res.data.user;
    const pick = [u.profile?.display_name, u.profile?.real_name, u.real_name, u.name].find(
      (s) => s && s.trim().length > 0,
    );
    return pick?.trim();
  }
}
