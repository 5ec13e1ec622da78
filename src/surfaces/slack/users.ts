/**
 * Display names of Slack users, and whether each is a bot or a workspace admin (users.info through
 * the gateway, on its Tier 4 budget), cached so a busy thread costs one lookup per user. Every call
 * names the workspace the user is in (the request's team): in OAuth mode there is no one workspace
 * to assume.
 *
 * The cache is the workspace's, in the state store (surfaces/tenant-cache.ts), not this process's:
 * the admin flag decides who may connect the workspace's chatbot, so every instance must read the
 * same one, and a workspace that uninstalls takes its users' copies with it.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Actor } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { TenantCache } from '../tenant-cache';
import type { SlackGateway } from './gateway';

const userInfoSchema = z.object({
  user: z.object({
    is_bot: z.boolean().nullish(),
    is_admin: z.boolean().nullish(),
    is_owner: z.boolean().nullish(),
    is_org_admin: z.boolean().nullish(),
    is_org_owner: z.boolean().nullish(),
    is_primary_owner: z.boolean().nullish(),
    name: z.string().nullish(),
    real_name: z.string().nullish(),
    profile: z.object({ display_name: z.string().nullish(), real_name: z.string().nullish() }).nullish(),
  }),
});

type Info = {
  /** null: users.info named nobody (the caller's fallback then). */
  name: string | null;
  bot: boolean;
  /** A workspace admin or owner (the tenant's admins: they may connect its chatbot). */
  admin: boolean;
  /**
   * An admin or owner of the Enterprise Grid org (is_org_admin, is_org_owner): only they change an
   * org-wide install's connection, which every workspace of the org shares. Absent in older records.
   */
  orgAdmin?: boolean;
};

const TTL_MS = 10 * 60 * 1000;
/**
 * A failed lookup is not retried for this long: without users:read, or where users.info does not
 * exist, every message would otherwise wait for a failing call (and the client's retries) again.
 */
const FAILED_TTL_MS = 60 * 1000;

export class UserNames {
  /** Per workspace and user: what users.info gave, or null when it gave nothing (the caller's fallback then). */
  private readonly cache: TenantCache<Info | null>;

  constructor(
    private readonly gateway: SlackGateway,
    store: StateStore,
    private readonly log: Logger,
  ) {
    this.cache = new TenantCache(store, 'slack', 'user');
  }

  /** The user's display name; `fallback` (e.g. a slash command's user_name) or the id when unknown. */
  async name(team: string, userId: string, fallback?: string): Promise<string> {
    return (await this.info(team, userId))?.name ?? fallback ?? userId;
  }

  /** Whether users.info says the user is a bot (an unknown user is not). */
  async isBot(team: string, userId: string): Promise<boolean> {
    return (await this.info(team, userId))?.bot === true;
  }

  /**
   * Who acts, by one rule for every listener and the App Home: an admin is named in
   * SLACK_ADMIN_USERS, or an admin or owner of the workspace, or of its Grid org (users.info). An org
   * admin or owner (and a named admin) is `orgAdmin`: only they change an org-wide install's shared
   * connection, not one workspace's admin.
   */
  async actor(team: string, userId: string, adminUsers: readonly string[], fallbackName?: string): Promise<Actor> {
    // One read of the cached users.info answers all three (each asking it again cost a store read).
    const info = await this.info(team, userId);
    const orgAdmin = adminUsers.includes(userId) || info?.orgAdmin === true;
    return {
      id: userId,
      name: info?.name ?? fallbackName ?? userId,
      isAdmin: orgAdmin || info?.admin === true,
      // Only said when true: an actor is the same plain record it was for everyone else.
      ...(orgAdmin ? { orgAdmin } : {}),
    };
  }

  /** Under the workspace's own part of the store: what one workspace's users.info said is never another's. */
  private async info(team: string, userId: string): Promise<Info | undefined> {
    return (
      (await this.cache.get(team, userId, async () => {
        try {
          return { value: await this.lookup(team, userId), ttlMs: TTL_MS };
        } catch (err) {
          this.log.debug({ err, userId }, 'slack: users.info failed');
          return { value: null, ttlMs: FAILED_TTL_MS };
        }
      })) ?? undefined
    );
  }

  private async lookup(team: string, userId: string): Promise<Info | null> {
    const res = userInfoSchema.safeParse(await this.gateway.userInfo(team, userId));
    if (!res.success) return null;
    const u = res.data.user;
    const pick = [u.profile?.display_name, u.profile?.real_name, u.real_name, u.name].find(
      (s) => s && s.trim().length > 0,
    );
    return {
      name: pick?.trim() ?? null,
      bot: u.is_bot === true,
      admin: u.is_admin === true || u.is_owner === true,
      orgAdmin: u.is_org_admin === true || u.is_org_owner === true,
    };
  }
}
