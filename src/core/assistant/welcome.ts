/**
 * The agent experience's greeting (Slack's Messages tab, `app_home_opened` with tab "messages"): a
 * user opens the app's DM many times a day, and a greeting on every open would bury the
 * conversation, so the intro is handed out once per user per day (UTC), decided in the store so
 * every instance agrees and a restart does not greet again.
 */
import { scoped, type ScopedKey } from '../../state/tenant-store';
import type { TenantScope } from '../context';
import type { AssistantIntro } from '../surface';
import { assistantIntro } from './intro';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The day a greeting counts for: the UTC date of `ms`. */
function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** In the workspace's own part of the store (an upgrade's day may greet once more: marks last two days). */
const welcomeKey = (user: string, day: string): ScopedKey => scoped('assistant', 'welcomed', user, day);

/**
 * The intro when `user` has not been greeted today in this workspace (and marks them greeted);
 * undefined otherwise. The mark outlives its day a little, so a clock near midnight still finds it.
 */
export async function dailyWelcome(ctx: TenantScope, user: string): Promise<AssistantIntro | undefined> {
  const now = ctx.now();
  const first = await ctx.view.setIfAbsent(welcomeKey(user, dayOf(now)), now, 2 * DAY_MS);
  if (!first) return undefined;
  return assistantIntro(ctx);
}
