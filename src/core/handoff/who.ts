/**
 * Who is who, decided once for every handoff path.
 *
 * An agent is a bridge admin or a member of a handoff channel that serves the tenant they act in
 * (the workspace or server of the place they act from): its own channel (`/chatbot connect`), the
 * environment's where it is that workspace's (tenants/offices.ts `channelsServing`), and, acting on a
 * ticket, the channel the ticket was posted to. On Slack membership is `conversations.members` of the
 * channel (cached briefly, refreshed: slack/home.ts); on Discord, the ViewChannel permission on it
 * (discord/channel-members.ts). Membership of another tenant's channel never counts, and a ticket
 * posted in another tenant's channel has no agents here: one deployment serves many offices, and
 * one office's agents are no other's. Where a button was pressed says nothing about who pressed it.
 * A platform that cannot tell means "not an agent".
 *
 * The asker is the user who started the conversation, recorded on the conversation itself (so it
 * lives as long as the conversation): not whoever posted in its thread.
 */
import { readOld } from '../../state/old-layout';
import type { CoreContext, HandoffTarget } from '../context';
import { convKeys, convRef, legacyKeys, type Conversation } from '../conversations/model';
import { convView } from '../conversations/records';
import type { Actor, SurfacePort } from '../surface';
import { channelsServing } from '../tenants/offices';
import { type RequestTenant, recordedTenant, tenantOf } from '../tenants/tenant';
import { sameTenant } from '../../state/tenant-store';
import { roleOf, stateOf } from './decide';
import type { Who } from './events';
import type { Ticket } from './model';
import { type Action, outcome } from './permissions';
import { quietly } from './ticket-view';

/** Who acts, through which surface, and in which tenant (the one their request carries). */
export interface Acting {
  actor: Actor;
  surface: SurfacePort;
  tenant: RequestTenant;
}

/** Whether `by.actor` is an agent: asked only by `whoIs`, so a role is learnt one way. */
async function isAgent(ctx: CoreContext, by: Acting, ticket?: Ticket): Promise<boolean> {
  if (by.actor.isAdmin) return true;
  const channels = await agentChannels(ctx, by, ticket);
  for (const t of channels) {
    const member = await quietly(
      ctx,
      () =>
        by.surface.directory.isMember({ surface: t.surface, workspace: t.workspace, channel: t.channel }, by.actor.id),
      'membership',
    );
    if (member === true) return true;
  }
  return false;
}

/** The channels whose members are agents of the tenant `by` acts in, on the surface they act through. */
async function agentChannels(ctx: CoreContext, by: Acting, ticket?: Ticket): Promise<HandoffTarget[]> {
  const tenant = by.tenant;
  // A channel that names no workspace (the environment's, before its server is known) is counted
  // below only where it serves this tenant.
  const posted = ticket?.root?.place.workspace ? ticket.root.place : undefined;
  // A ticket of another tenant's channel (a forged button, a stale one): none of this tenant's agents' business.
  if (posted && !sameTenant(tenantOf(posted), tenant)) return [];
  // The channel the ticket was posted to first: it stays its agents' after the tenant moves its channel.
  const all = [...(posted ? [posted] : []), ...(await channelsServing(ctx, tenant))];
  // One lookup per channel (the environment's names no workspace where the ticket's does).
  const seen = new Set<string>();
  return all
    .filter((t) => t.surface === by.surface.name && !seen.has(t.channel) && seen.add(t.channel))
    .map((t) => ({ surface: t.surface, workspace: t.workspace, channel: t.channel }));
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
export async function whoIs(ctx: CoreContext, by: Acting, intent?: Intent): Promise<Who> {
  // On another tenant's ticket (a forged or replayed button) an admin is nobody's admin: only the
  // tenants of its asker and of its channel have a say in it (one office's two surfaces included).
  const actor = intent?.ticket && strangerTo(intent.ticket, by) ? { ...by.actor, isAdmin: false } : by.actor;
  const as = (agent: boolean): Who => ({ kind: 'person', actor, surface: by.surface.name, agent });
  if (intent && !agentMatters(intent, as)) return as(false);
  return as(await isAgent(ctx, { ...by, actor }, intent?.ticket));
}

/** Whether `by` acts from a tenant that is neither the ticket's asker's nor its channel's. */
function strangerTo(ticket: Ticket, by: Acting): boolean {
  const here = by.tenant;
  const posted = ticket.root?.place.workspace ? ticket.root.place : undefined;
  return !sameTenant(recordedTenant(ticket.userPlace), here) && !(posted && sameTenant(tenantOf(posted), here));
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
    (await view.get(convKeys.asker(conv.id, actor.id))) ??
    (await readOld(ctx.store, legacyKeys.asker(conv.id, actor.id)));
  return asked !== undefined ? actor : undefined;
}
