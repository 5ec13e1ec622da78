/**
 * A tenant leaves (a Slack workspace uninstalls the app or revokes its token, a Discord server
 * removes the bot): every answer of it in flight stops, on every instance, then its records are
 * deleted (forget.ts). Logged once, by the instance that handled the event. An installation that
 * served other workspaces (a Slack org-wide install: its teams' places carry the team, not the
 * enterprise) takes them with it: each leaves as a tenant of its own, in the same one line.
 *
 * - This instance, at once: each queue item being answered is registered with its tenant
 *   (tenant-work.ts). Leaving aborts them: the service stream is closed, the relay drops the answer
 *   (no further platform call, nothing marked interrupted, no Retry), and the surface the item holds
 *   refuses every call from then on, calls already waiting for budget included (left-port.ts).
 * - Other instances: leaving first writes a mark, `tenant-left:<hash of the tenant>`, holding when
 *   it left (kept a day; it names no workspace and holds no data of it, so nothing of the tenant's
 *   stays readable), and in a due index of marks (`tenant-left`). Every instance reads that index
 *   every third of a lease while it works for any tenant (`stopLeftWork`, the bridge's sweep, as
 *   often as an answer renews its lease), and a tenant's own mark before it
 *   starts a queue item (`beginTenantWork`), and stops what belongs to a conversation begun before
 *   the mark; crash recovery drops an abandoned answer begun before it without marking it
 *   (`leftBefore`). A conversation begun after the mark (a re-install's) is not touched, so a
 *   re-install starts clean.
 */
import { createHash } from 'node:crypto';
import type { CoreContext } from '../context';
import type { Place } from '../surface';
import { type Tenant, tenantFor } from '../../state/tenant-store';
import { forgetTenant, type ForgetOptions, type Forgotten } from './forget';
import { tenantOf } from './tenant';
import { unindexedMayRemain } from './unindexed';
import { type TenantWork, tenantWork } from './tenant-work';

/** How long the mark stays: far longer than an answer runs, or waits for a dead instance's recovery. */
const LEFT_MARK_TTL_MS = 24 * 60 * 60 * 1000;
/** The due index of leaving marks (member: the mark's key; due: when the tenant left). */
const LEFT_INDEX = 'tenant-left';
/** Marks a sweep reads at most (a day's leavings, far more than happen). */
const LEFT_PER_SWEEP = 1000;
/** How long leaving waits for this instance's stopped answers to end before it deletes the records. */
const STOP_WAIT_MS = 5_000;

/**
 * The mark's key: global (outside the tenant's part of the store, which forgetTenant deletes), named
 * by a hash of the tenant (the records of a tenant that left name it nowhere).
 */
function leftKey(t: Tenant): string {
  const id = createHash('sha256').update(`${t.surface}:${t.id}`).digest('base64url').slice(0, 22);
  return `tenant-left:${id}`;
}

function tenantAt(place: Pick<Place, 'surface' | 'workspace'>): Tenant {
  return tenantOf(place);
}

async function leftAt(ctx: Pick<CoreContext, 'store'>, key: string): Promise<number | undefined> {
  const at = await ctx.store.get(key);
  return typeof at === 'number' ? at : undefined;
}

/** A workspace the leaving tenant's installation served (a Slack org-wide install's teams). */
export interface ServedWorkspace {
  workspace: string;
  /** The surface's own keys of it (as `ForgetOptions.surfaceKeys`). */
  surfaceKeys?: ForgetOptions['surfaceKeys'];
}

export interface LeaveOptions extends ForgetOptions {
  /** What the surface saw (app_uninstalled, tokens_revoked, GUILD_DELETE): logged. */
  why: string;
  /** The surface knew the tenant (its installation was there): logged even when nothing else was left. */
  known?: boolean;
  /**
   * Workspaces its installation served, whose places (and so answers and records) carry their own
   * id, not the tenant's: each leaves with it, as a tenant of its own; one line is logged for all.
   */
  served?: readonly ServedWorkspace[];
}

export interface Left extends Forgotten {
  /** This instance's answers (queue items being answered) that were stopped. */
  stopped: number;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Resolves when `p` settles or after `ms`, whichever is first (a real timer's duration). */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([p.catch(() => undefined), timeout]);
  clearTimeout(timer);
}

/** The tenant leaves: its answers stop everywhere, then its records are deleted (see the header). */
export async function leaveTenant(
  ctx: Pick<CoreContext, 'store' | 'memory' | 'log' | 'now'>,
  tenant: Tenant,
  opts: LeaveOptions,
): Promise<Left> {
  const at = ctx.now();
  const leaving: Array<{ tenant: Tenant; surfaceKeys?: ForgetOptions['surfaceKeys'] }> = [
    { tenant, ...(opts.surfaceKeys ? { surfaceKeys: opts.surfaceKeys } : {}) },
    ...(opts.served ?? []).map((w) => ({
      tenant: tenantFor(tenant.surface, w.workspace),
      ...(w.surfaceKeys ? { surfaceKeys: w.surfaceKeys } : {}),
    })),
  ];
  // The marks first: from now on no instance starts an item of these tenants, and each stops its own.
  for (const l of leaving) {
    await ctx.store.set(leftKey(l.tenant), at, LEFT_MARK_TTL_MS);
    // In the marks' due index too: the sweep reads the marks of the last day, never one per tenant.
    await ctx.store.schedule(LEFT_INDEX, leftKey(l.tenant), at);
  }
  const stops = leaving.map((l) => tenantWork(ctx).stop(leftKey(l.tenant), at));
  // Their last steps (neither a platform call nor a write) are over before the records go.
  await within(Promise.all(stops.map((x) => x.ended)), STOP_WAIT_MS);
  const left: Left = { stopped: stops.reduce((n, x) => n + x.stopped, 0), records: 0, conversations: 0, tickets: 0 };
  // An older version's unindexed records are looked for only while they may remain (unindexed.ts).
  const unindexed = await unindexedMayRemain(ctx.store, at);
  for (const l of leaving) {
    const forgetting: ForgetOptions = { keepChatbots: opts.keepChatbots ?? [], unindexed };
    if (l.surfaceKeys) forgetting.surfaceKeys = l.surfaceKeys;
    const forgotten = await forgetTenant(ctx.store, l.tenant, forgetting);
    left.records += forgotten.records;
    left.conversations += forgotten.conversations;
    left.tickets += forgotten.tickets;
  }
  logLeft(ctx, tenant, opts, left);
  return left;
}

/** The one line of a leaving (the workspaces it served counted in it, named in its fields). */
function logLeft(ctx: Pick<CoreContext, 'log'>, tenant: Tenant, opts: LeaveOptions, left: Left): void {
  const served = (opts.served ?? []).map((w) => w.workspace);
  const name =
    `${tenant.surface} ${tenant.id}` +
    (served.length > 0 ? ` and the ${plural(served.length, 'workspace')} it served` : '');
  const fields = {
    tenant: `${tenant.surface} ${tenant.id}`,
    why: opts.why,
    ...(served.length > 0 ? { served } : {}),
    ...left,
  };
  if (opts.known || left.stopped > 0 || left.records > 0)
    ctx.log.info(
      fields,
      `tenant left: ${name}: stopped ${plural(left.stopped, 'answer')}, deleted ${plural(left.records, 'record')}`,
    );
  else ctx.log.debug(fields, `tenant left: ${name}: already gone`);
}

/**
 * Registers the work of a queue item of the conversation in `place`, begun at `since`. Undefined when
 * its tenant left after the conversation began: the item is not answered.
 */
export async function beginTenantWork(
  ctx: Pick<CoreContext, 'store' | 'memory'>,
  place: Pick<Place, 'surface' | 'workspace'>,
  since: number,
): Promise<TenantWork | undefined> {
  const key = leftKey(tenantAt(place));
  // Registered before the mark is read: a leaving between the two finds the work, or the work the mark.
  const work = tenantWork(ctx).begin(key, since);
  // A mark that cannot be read ends the work it registered: the item fails, and is tried again.
  const at = await leftAt(ctx, key).catch((err: unknown) => {
    work.end();
    throw err;
  });
  if (at === undefined || since > at) return work;
  work.end();
  return undefined;
}

/**
 * Stops this instance's work of every tenant that left since it began (the leaving was handled by
 * another instance). Returns how many were stopped; the sweep runs every third of a lease. It reads
 * the marks' due index (the leavings of the last day: one read, however many tenants are installed
 * or at work here), and none at all while this instance works for no tenant; a mark past its day
 * leaves the index.
 */
export async function stopLeftWork(ctx: Pick<CoreContext, 'store' | 'memory' | 'log' | 'now'>): Promise<number> {
  const registry = tenantWork(ctx);
  if (registry.tenants().length === 0) return 0;
  const now = ctx.now();
  let total = 0;
  for (const mark of await ctx.store.due(LEFT_INDEX, now, LEFT_PER_SWEEP)) {
    if (mark.dueAt <= now - LEFT_MARK_TTL_MS) {
      await ctx.store.unschedule(LEFT_INDEX, mark.member);
      continue;
    }
    const { stopped } = registry.stop(mark.member, mark.dueAt);
    // The leaving itself was logged once, by the instance that handled it.
    if (stopped > 0) ctx.log.debug({ tenant: mark.member, stopped }, 'tenant left elsewhere: its answers here stopped');
    total += stopped;
  }
  return total;
}

/**
 * An abandoned answer (crash recovery) of a tenant that left after the answer began: dropped, not
 * marked interrupted. Records of older versions carry no start: taken as begun before.
 */
export async function leftBefore(
  ctx: Pick<CoreContext, 'store'>,
  answer: { place: Pick<Place, 'surface' | 'workspace'>; startedAt?: number },
): Promise<boolean> {
  const at = await leftAt(ctx, leftKey(tenantAt(answer.place)));
  return at !== undefined && (answer.startedAt ?? 0) <= at;
}
