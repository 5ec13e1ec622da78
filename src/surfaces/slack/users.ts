/**
 * Display names of Slack users, and whether each is a bot (users.info through the gateway, on its
 * Tier 4 budget), cached so a busy thread costs one lookup per user. Every call names the workspace
 * the user is in (the request's team): in OAuth mode there is no one workspace to assume.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SlackGateway } from './gateway';

const userInfoSchema = z.object({
  user: z.object({
    is_bot: z.boolean().nullish(),
    is_admin: z.boolean().nullish(),
    is_owner: z.boolean().nullish(),
    name: z.string().nullish(),
    real_name: z.string().nullish(),
    profile: z.object({ display_name: z.string().nullish(), real_name: z.string().nullish() }).nullish(),
  }),
});

interface Info {
  name: string | undefined;
  bot: boolean;
  /** A workspace admin or owner (the tenant's admins: they may connect its chatbot). */
  admin: boolean;
}

const TTL_MS = 10 * 60 * 1000;
/**
 * A failed lookup is not retried for this long: without users:read, or where users.info does not
 * exist, every message would otherwise wait for a failing call (and the client's retries) again.
 */
const FAILED_TTL_MS = 60 * 1000;
const MAX_CACHED = 10_000;

export class UserNames {
  /** Per user: what users.info gave, or undefined when it gave nothing (the caller's fallback then). */
  private readonly cache = new Map<string, { until: number; info: Promise<Info | undefined> }>();

  constructor(
    private readonly gateway: SlackGateway,
    private readonly log: Logger,
  ) {}

  /** The user's display name; `fallback` (e.g. a slash command's user_name) or the id when unknown. */
  async name(team: string, userId: string, fallback?: string): Promise<string> {
    return (await this.info(team, userId))?.name ?? fallback ?? userId;
  }

  /** Whether users.info says the user is a bot (an unknown user is not). */
  async isBot(team: string, userId: string): Promise<boolean> {
    return (await this.info(team, userId))?.bot === true;
  }

  /** Whether users.info says the user is an admin or owner of the workspace (unknown: not). */
  async isWorkspaceAdmin(team: string, userId: string): Promise<boolean> {
    return (await this.info(team, userId))?.admin === true;
  }

  /** Keyed by the workspace too: what one workspace's users.info said is never another's. */
  private info(team: string, userId: string): Promise<Info | undefined> {
    const key = `${team}:${userId}`;
    const hit = this.cache.get(key);
    return hit && Date.now() < hit.until ? hit.info : this.fetch(key, team, userId);
  }

  private fetch(key: string, team: string, userId: string): Promise<Info | undefined> {
    const entry = { until: Date.now() + TTL_MS, info: Promise.resolve<Info | undefined>(undefined) };
    entry.info = this.lookup(team, userId).catch((err: unknown) => {
      this.log.debug({ err, userId }, 'slack: users.info failed');
      entry.until = Date.now() + FAILED_TTL_MS;
      return undefined;
    });
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    return entry.info;
  }

  private async lookup(team: string, userId: string): Promise<Info | undefined> {
    const res = userInfoSchema.safeParse(await this.gateway.userInfo(team, userId));
    if (!res.success) return undefined;
    const u = res.data.user;
    const pick = [u.profile?.display_name, u.profile?.real_name, u.real_name, u.name].find(
      (s) => s && s.trim().length > 0,
    );
    return { name: pick?.trim(), bot: u.is_bot === true, admin: u.is_admin === true || u.is_owner === true };
  }
}
