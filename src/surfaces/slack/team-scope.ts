/**
 * The workspace (and its bot user) of the Slack request being handled. In OAuth mode the bridge has
 * no one team of its own: a call made while handling a request that names no place (a user's
 * display name, a file download) is for the request's workspace, which Bolt's authorize resolved.
 * A global middleware runs the rest of the request inside this scope (AsyncLocalStorage).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { App } from '@slack/bolt';

interface TeamScope {
  team?: string;
  botUserId?: string;
}

const scope = new AsyncLocalStorage<TeamScope>();

/** Every listener of `app` runs with its request's workspace in scope. */
export function scopeRequestsToTheirTeam(app: App): void {
  app.use(async ({ context, next }) => {
    await scope.run({ team: context.teamId ?? context.enterpriseId, botUserId: context.botUserId }, next);
  });
}

/** The workspace of the request being handled, if any. */
export function scopedTeam(): string | undefined {
  return scope.getStore()?.team;
}

export function scopedBotUserId(): string | undefined {
  return scope.getStore()?.botUserId;
}
