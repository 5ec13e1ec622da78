/**
 * The workspace of a Slack request whose body names none. It travels with the request: Bolt's
 * authorize resolved it into the listener's `context` (OAuth mode); with one token it is the token's
 * own team (auth.test), which is not per-request state.
 */
import type { Context } from '@slack/bolt';

export function teamOf(fallback: { team: () => string }, context: Context): string {
  return context.teamId ?? context.enterpriseId ?? fallback.team();
}
