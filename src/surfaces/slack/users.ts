/** Display names of Slack users (users.info), cached so a busy thread costs one lookup per user. */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { WebClient } from './web';

const userInfoSchema = z.object({
  user: z.object({
    name: z.string().optional(),
    real_name: z.string().optional(),
    profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).partial().optional(),
  }),
});

const TTL_MS = 10 * 60 * 1000;

export class UserNames {
  private readonly cache = new Map<string, { at: number; name: Promise<string> }>();

  constructor(
    private readonly client: WebClient,
    private readonly log: Logger,
  ) {}

  /** The user's display name; `fallback` (e.g. a slash command's user_name) or the id when unknown. */
  name(userId: string, fallback?: string): Promise<string> {
    const hit = this.cache.get(userId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.name;
    const name = this.lookup(userId).then(
      (n) => n ?? fallback ?? userId,
      (err: unknown) => {
        this.log.debug({ err, userId }, 'slack: users.info failed');
        this.cache.delete(userId);
        return fallback ?? userId;
      },
    );
    this.cache.set(userId, { at: Date.now(), name });
    return name;
  }

  private async lookup(userId: string): Promise<string | undefined> {
    const res = userInfoSchema.safeParse(await this.client.users.info({ user: userId }));
    if (!res.success) return undefined;
    const u = res.data.user;
    const pick = [u.profile?.display_name, u.profile?.real_name, u.real_name, u.name].find((s) => s && s.trim().length > 0);
    return pick?.trim();
  }
}
