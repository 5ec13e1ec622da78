/**
 * The handoff figures of a period, for /analytics: how many tickets opened, were claimed, closed,
 * cancelled or timed out in it; how long users waited for a claim and for the first agent reply
 * (p50 and p90, nearest rank, counted from the request); and the satisfaction ratings given in it.
 * Each event counts in the period it happened in. Pure over the stored tickets of one tenant.
 */
import type { Tenant } from '../../state/tenant-store';
import type { UnconnectedScope } from '../context';
import { viewTenants } from '../tenants/offices';
import { duration } from './render';
import type { Ticket } from './model';
import { TicketStore } from './tickets';

export interface HandoffFigures {
  opened: number;
  claimed: number;
  closed: number;
  cancelled: number;
  timedOut: number;
  /** Milliseconds; undefined when nothing was claimed (or answered) in the period. */
  claimP50?: number;
  claimP90?: number;
  replyP50?: number;
  replyP90?: number;
  satisfactionAverage?: number;
  satisfactionCount: number;
  /**
   * With a response target (HANDOFF_FIRST_REPLY_S): first replies in the period that came before the
   * escalation, and escalations in the period (the target missed).
   */
  targetMet?: number;
  targetMissed?: number;
}

/** Nearest-rank percentile of `values` (p in 0..1). */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function computeHandoffFigures(
  tickets: Ticket[],
  fromMs: number,
  toMs: number,
  opts: { responseTarget?: boolean } = {},
): HandoffFigures {
  const inRange = (at: number | undefined): at is number => at !== undefined && at >= fromMs && at <= toMs;
  const ended = (status: Ticket['status']): number =>
    tickets.filter((t) => t.status === status && inRange(t.endedAt)).length;
  const claimWaits = tickets.filter((t) => inRange(t.firstClaimedAt)).map((t) => t.firstClaimedAt! - t.createdAt);
  const replyWaits = tickets.filter((t) => inRange(t.firstReplyAt)).map((t) => t.firstReplyAt! - t.createdAt);
  const ratings = tickets.filter((t) => t.rating !== undefined && inRange(t.ratedAt)).map((t) => t.rating!);
  const figures: HandoffFigures = {
    opened: tickets.filter((t) => inRange(t.createdAt)).length,
    claimed: claimWaits.length,
    closed: ended('closed'),
    cancelled: ended('cancelled'),
    timedOut: ended('timedout'),
    satisfactionCount: ratings.length,
  };
  const set = (k: 'claimP50' | 'claimP90' | 'replyP50' | 'replyP90', v: number | undefined): void => {
    if (v !== undefined) figures[k] = v;
  };
  set('claimP50', percentile(claimWaits, 0.5));
  set('claimP90', percentile(claimWaits, 0.9));
  set('replyP50', percentile(replyWaits, 0.5));
  set('replyP90', percentile(replyWaits, 0.9));
  if (opts.responseTarget) {
    figures.targetMet = tickets.filter((t) => inRange(t.firstReplyAt) && t.escalatedAt === undefined).length;
    figures.targetMissed = tickets.filter((t) => inRange(t.escalatedAt)).length;
  }
  if (ratings.length > 0)
    figures.satisfactionAverage = Math.round((ratings.reduce((a, b) => a + b, 0) / ratings.length) * 100) / 100;
  return figures;
}

/** Every ticket of the tenant's view (its own, and those its handoff channel holds). */
export function handoffTickets(
  ctx: Pick<UnconnectedScope, 'store' | 'config' | 'now'>,
  tenant: Tenant,
): Promise<Ticket[]> {
  // A ticket never handed its conversation (a crash while opening it) never was a handoff: `of` skips it.
  return new TicketStore(ctx).of(viewTenants(ctx, tenant), 'all');
}

/** The figures of one tenant's tickets in the days `from`..`to` (YYYY-MM-DD, UTC, both whole). */
export async function handoffFigures(
  ctx: Pick<UnconnectedScope, 'store' | 'config' | 'now'>,
  tenant: Tenant,
  range: { from: string; to: string },
  opts: { responseTarget?: boolean } = {},
): Promise<HandoffFigures> {
  const tickets = await handoffTickets(ctx, tenant);
  return computeHandoffFigures(
    tickets,
    Date.parse(`${range.from}T00:00:00.000Z`),
    Date.parse(`${range.to}T23:59:59.999Z`),
    opts,
  );
}

const maybe = (ms: number | undefined): string => (ms === undefined ? 'n/a' : duration(ms));

export function handoffFiguresText(f: HandoffFigures): string {
  return [
    `Handoffs: ${f.opened} opened, ${f.claimed} claimed, ${f.closed} closed, ${f.cancelled} cancelled, ${f.timedOut} timed out`,
    `Time to claim: p50 ${maybe(f.claimP50)}, p90 ${maybe(f.claimP90)}`,
    `Time to first agent reply: p50 ${maybe(f.replyP50)}, p90 ${maybe(f.replyP90)}`,
    `Satisfaction: ${f.satisfactionAverage === undefined ? 'n/a' : `${f.satisfactionAverage}/5`} average of ${f.satisfactionCount} rating${f.satisfactionCount === 1 ? '' : 's'}`,
    ...(f.targetMet !== undefined && f.targetMissed !== undefined
      ? [`Response target: ${f.targetMet} met, ${f.targetMissed} missed`]
      : []),
  ].join('\n');
}
