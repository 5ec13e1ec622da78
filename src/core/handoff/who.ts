/**
 * Who is who, decided once for every handoff path.
 *
 * An agent is a bridge admin or a member of a handoff channel on the surface they act from: on
 * Slack, `conversations.members` of the channel (cached briefly, refreshed: slack/home.ts); on
 * Discord, the ViewChannel permission on it (discord/channel-members.ts). Where a button was
 * pressed says nothing about who pressed it. A platform that cannot tell means "not an agent".
 *
 * The asker is the user who started the conversation, recorded on the conversation itself (so it
 * lives as long as the conversation): not whoever posted in its thread.
 */
import type { CoreContext, HandoffTarget } from '../context';
import { convKeys, convRef, legacyKeys, type Conversation } from '../conversations/model';
import { convView } from '../conversations/records';
import type { Actor, SurfacePort } from '../surface';
import { roleOf, stateOf } from './decide';
import type { Who } from './events';
import type { Ticket } from './model';
import { type Action, outcome } from './permissions';
import { quietly } from './ticket-view';

/** Whether `actor` is an agent: asked only by `whoIs`, so a role is learnt one way. */
async function isAgent(ctx: CoreContext, actor: Actor, surface: SurfacePort, ticket?: Ticket): Promise<boolean> {
  if (actor.isAdmin) return true;
  const targets = Object.values(ctx.config.handoff).filter(
    (t): t is HandoffTarget => t !== undefined && t.surface === surface.name,
  );
  // The channel the ticket was posted to (a tenant's own handoff channel): its members are its agents.
  const posted = ticket?.root?.place;
  if (posted && posted.surface === surface.name) targets.unshift({ ...posted });
  for (const t of targets) {
    const member = await quietly(
      ctx,
      () => surface.directory.isMember({ surface: t.surface, workspace: t.workspace, channel: t.channel }, actor.id),
      'membership',
    );
    if (member === true) return true;
  }
  return false;
}

/** What a person is about to do, when known: the action, and the ticket or asker it concerns. */
export interface Intent {
  action: Action;
  ticket?: Ticket;
  asker?: Actor;
}

/**
 * The person acting, as the state machine sees them. Given what they are about to do, the platform
 * is asked whether they are an agent only when the permission table's answer depends on it (a
 * message forwarded from the user's thread, a handoff request, Retry: it does not), so the hot
 * paths cost no membership lookup.
 */
export async function whoIs(ctx: CoreContext, actor: Actor, surface: SurfacePort, intent?: Intent): Promise<Who> {
  const as = (agent: boolean): Who => ({ kind: 'person', actor, surface: surface.name, agent });
  if (intent && !agentMatters(intent, as)) return as(false);
  return as(await isAgent(ctx, actor, surface, intent?.ticket));
}

function agentMatters({ action, ticket, asker }: Intent, as: (agent: boolean) => Who): boolean {
  const cell = (who: Who) => outcome(action, roleOf(ticket, who, asker), stateOf(ticket));
  return cell(as(true)) !== cell(as(false));
}

/** Who started the conversation; undefined when nobody is known (only an admin may act for them then). */
export async function askerOf(ctx: CoreContext, conv: Conversation, actor: Actor): Promise<Actor | undefined> {
  if (conv.asker) return conv.asker;
  // A conversation from before its asker was recorded: who asked in it then (those keys expire on their own).
  const view = convView(ctx.store, convRef(conv));
  const asked =
    (await view.get(convKeys.asker(conv.id, actor.id))) ?? (await ctx.store.get(legacyKeys.asker(conv.id, actor.id)));
  return asked !== undefined ? actor : undefined;
}
