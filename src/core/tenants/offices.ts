/**
 * Tenants and offices. A tenant is a Slack workspace, a Discord server or the shell (the place's
 * surface and workspace); an office is the tenants that name the same chatbot. A ticket goes to a
 * handoff channel of its own tenant, or of another tenant of the same office (a Discord user's
 * ticket in a Slack channel), never elsewhere.
 *
 * Where a tenant's own chatbot and handoff channel come from is `Offices` (the `/chatbot connect`
 * records; `storedOffices` reads them from the tenant's part of the store). The environment's
 * channels (SLACK_HANDOFF_CHANNEL, DISCORD_HANDOFF_CHANNEL) serve tenants without their own, but only
 * on their own workspace: a channel whose workspace is not known (Slack's env channel names none)
 * serves a surface that has one workspace, never a deployment where many install it.
 */
import { z } from 'zod';
import type { Json } from '../../state/store';
import { sameTenant, tenantStore, type Tenant } from '../../state/tenant-store';
import type { CoreContext, HandoffTarget, TenantConfig } from '../context';
import { parseStored } from '../conversations/model';
import type { SurfaceName } from '../surface';
import { OFFICE_KEY, type OfficeRecord, type Offices, updateOfficeRecord } from './office-record';
import { servesManyTenants } from './shared-chatbot';
import { isDirectTenant, tenantOf } from './tenant';

const windowSchema = z.object({
  weekday: z.number().int().min(0).max(6),
  startMin: z.number().int().min(0),
  endMin: z
    .number()
    .int()
    .max(24 * 60),
});
const officeSchema = z.object({
  chatbotId: z.string().optional(),
  handoffChannel: z.string().optional(),
  hours: z.union([z.literal('always'), z.array(windowSchema)]).optional(),
  digestHour: z.number().int().min(0).max(23).optional(),
  handoff: z
    .object({
      assign: z.enum(['round-robin', 'none']).optional(),
      offerMs: z.number().positive().optional(),
      firstReplyMs: z.number().min(0).optional(),
      claimTimeoutMs: z.number().positive().optional(),
      remindMs: z.number().positive().optional(),
      onNoAnswer: z.boolean().optional(),
      linkHosts: z.array(z.string()).optional(),
    })
    .optional(),
});

/** Offices as kept in each tenant's part of the store (`t:<kind>:<id>:office`). */
export function storedOffices(ctx: Pick<CoreContext, 'store'>): Offices {
  return { of: async (t) => parseStored(officeSchema, await tenantStore(ctx.store, t).get(OFFICE_KEY)) };
}

/** Writes a tenant's office record (the `/chatbot connect` form's result), by compare-and-set. */
export async function saveOffice(ctx: Pick<CoreContext, 'store'>, t: Tenant, record: OfficeRecord): Promise<void> {
  await updateOfficeRecord(tenantStore(ctx.store, t), () => officeJson(record));
}

function officeJson(record: OfficeRecord): { [key: string]: Json } {
  const { hours, ...rest } = record;
  const windows = hours === 'always' || hours === undefined ? hours : hours.map((w) => ({ ...w }));
  return windows === undefined ? { ...rest } : { ...rest, hours: windows };
}

/**
 * One part of a tenant's own office (`/chatbot hours`: its hours, or the hour of its day's leads);
 * undefined removes it (the environment's applies again). The rest of its record is kept: the part is
 * changed on the record as it is when written (compare-and-set), so a change made meanwhile on another
 * instance is kept too.
 */
export async function saveOfficePart<K extends 'hours' | 'digestHour' | 'handoff'>(
  ctx: Pick<CoreContext, 'store'>,
  t: Tenant,
  part: K,
  value: OfficeRecord[K],
): Promise<void> {
  await updateOfficeRecord(tenantStore(ctx.store, t), (current) => {
    const { [part]: _old, ...rest } = parseStored(officeSchema, current) ?? {};
    return officeJson(value === undefined ? rest : { ...rest, [part]: value });
  });
}

/** The tenant's connection (`/chatbot connect`, read through the chatbot directory), else its office record. */
function officesOf(ctx: CoreContext): Offices {
  if (ctx.offices) return ctx.offices;
  const stored = storedOffices(ctx);
  const chatbots = ctx.chatbots;
  if (!chatbots) return stored;
  return {
    of: async (t) => {
      const c = await chatbots.forTenant(t);
      if (c?.connected) return { chatbotId: c.chatbotId, handoffChannel: c.handoffChannel };
      return stored.of(t);
    },
  };
}

/** The chatbot a tenant's questions go to: its own, or the environment's where one office is served. */
async function chatbotOf(ctx: CoreContext, t: Tenant): Promise<string | undefined> {
  const own = (await officesOf(ctx).of(t))?.chatbotId;
  if (own) return own;
  // The environment's chatbot links tenants into one office only where the deployment is one office.
  return servesManyTenants(ctx, t.surface) ? undefined : ctx.config.chatbotId;
}

/** True only when both tenants resolve to the same chatbot (the same office). */
export async function sameOffice(ctx: CoreContext, a: Tenant, b: Tenant): Promise<boolean> {
  if (sameTenant(a, b)) return true;
  const [x, y] = await Promise.all([chatbotOf(ctx, a), chatbotOf(ctx, b)]);
  return x !== undefined && x === y;
}

// Direct messages with the bot are no server's (tenant.ts's isDirectTenant): the deployment's own
// channel, the environment's, takes their tickets.

/** The environment's channel of `surface`, as a channel of `from`'s workspace when it can be one; else undefined. */
function envTargetFor(ctx: { config: TenantConfig }, surface: SurfaceName, from: Tenant): HandoffTarget | undefined {
  const env = ctx.config.handoff[surface];
  if (!env) return undefined;
  if (env.workspace === '') return servesManyTenants(ctx, surface) ? undefined : env;
  const direct = from.surface === surface && isDirectTenant(from);
  return surface !== from.surface || env.workspace === from.id || direct ? env : undefined;
}

/**
 * The tenant an agent acting from `t` is an agent of (their round-robin availability, hours/roster.ts):
 * their own, except direct messages with the bot (no server's), whose agents are those of the
 * environment's channel's server, where that is known.
 */
export function agentsTenant(ctx: CoreContext, t: Tenant): Tenant {
  const env = ctx.config.handoff[t.surface];
  return isDirectTenant(t) && env && env.workspace !== '' ? tenantOf(env) : t;
}

/**
 * True when `t` is the workspace (server) of the environment's handoff channel on its surface: the one
 * workspace a one-office deployment serves, or the channel's own server. Records of before tenants,
 * kept for the deployment's own channel, are its.
 */
export function ownsEnvChannel(ctx: CoreContext, t: Tenant): boolean {
  return t.id !== '' && !isDirectTenant(t) && envTargetFor(ctx, t.surface, t) !== undefined;
}

export const NO_OWN_CHANNEL =
  'This workspace has no handoff channel of its own yet, so I cannot reach a person from here. An admin can set one with /chatbot connect.';
const NO_CHANNEL =
  'Sorry, no human handoff channel is configured, so I cannot reach a person from here. Ask an admin to set a handoff channel.';

/**
 * The handoff channels on `tenant`'s own surface that serve it, the one its tickets go to first: its
 * own channel (its connection or office record), then the environment's where that is its workspace's.
 * Their members are the tenant's agents (handoff/who.ts); no other tenant's channel is ever among them.
 */
export async function channelsServing(ctx: CoreContext, tenant: Tenant): Promise<HandoffTarget[]> {
  const own = (await officesOf(ctx).of(tenant))?.handoffChannel;
  const env = envTargetFor(ctx, tenant.surface, tenant);
  return [...(own ? [{ surface: tenant.surface, workspace: tenant.id, channel: own }] : []), ...(env ? [env] : [])];
}

/**
 * Where a ticket of `tenant`'s conversation goes: the tenant's own channel, else the environment's on
 * its surface (when it is its workspace's), else another surface's channel of the same office.
 * A refusal says why none may be used.
 */
export async function routeHandoff(ctx: CoreContext, tenant: Tenant): Promise<HandoffTarget | { refusal: string }> {
  const [here] = await channelsServing(ctx, tenant);
  if (here) return here;
  for (const other of Object.values(ctx.config.handoff)) {
    if (!other || other.surface === tenant.surface || !ctx.surfaces.get(other.surface)) continue;
    if (await sameOffice(ctx, tenant, tenantOf(other))) return other;
  }
  // A channel on this surface that is another workspace's, or none of this workspace's own.
  const elsewhere = ctx.config.handoff[tenant.surface] !== undefined || servesManyTenants(ctx, tenant.surface);
  return { refusal: elsewhere ? NO_OWN_CHANNEL : NO_CHANNEL };
}

/**
 * The tenants whose tickets a viewer of `viewer` sees (the queue, the figures): its own, and the
 * environment's channel of its surface where that channel is its workspace's but names none (one
 * Slack workspace: tickets posted there, from any surface of the office, are recorded under it).
 */
export function viewTenants(ctx: { config: TenantConfig }, viewer: Tenant): Tenant[] {
  const env = envTargetFor(ctx, viewer.surface, viewer);
  return env && env.workspace === '' && viewer.id !== '' ? [viewer, tenantOf(env)] : [viewer];
}
