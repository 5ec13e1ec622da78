/**
 * The workspace of a Slack request whose body names none. It travels with the request: Bolt's
 * authorize resolved it into the listener's `context` (OAuth mode); with one token it is the token's
 * own team (auth.test), which is not per-request state.
 */
import type { Context } from '@slack/bolt';

export function teamOf(fallback: { team: () => string }, context: Context): string {
  return context.teamId ?? context.enterpriseId ?? fallback.team();
}

/**
 * The workspace a request is for. In OAuth mode (no token team) it is the one Bolt's `authorize`
 * resolved the installation for, whatever else the body names (a modal's metadata, a stale button's
 * message): the request acts in, and only in, the workspace whose token serves it. With one token,
 * the body's team as before (one workspace).
 */
export function authorizedTeam(
  fallback: { team: () => string },
  context: Context,
  ...named: Array<string | undefined | null>
): string {
  const authorized = fallback.team() === '' ? context.teamId : undefined;
  return authorized || named.find((t): t is string => typeof t === 'string' && t !== '') || teamOf(fallback, context);
}
