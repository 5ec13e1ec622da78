/**
 * What the periodic sweep owes a waiting ticket at a given time, as state machine events: the user
 * is told once when nobody claimed within the claim timeout (the ticket stays open), the thread gets
 * a reminder each interval (at most MAX_REMINDERS), and a ticket still waiting after that times out.
 * Pure: the caller passes the time and the intervals; `decide` refuses a step another sweep took.
 */
import type { HandoffStep } from './events';
import type { Office } from './hours/office';
import { officeTimeBetween } from './hours/office-hours';
import { MAX_REMINDERS, type Ticket } from './model';

export interface SweepTiming {
  claimTimeoutMs: number;
  remindMs: number;
  /** Time that counts between two instants: office time with HANDOFF_HOURS (hours/office-hours.ts), else all of it. */
  elapsed?: (t0: number, t1: number) => number;
  /** `elapsed` counts office time only (HANDOFF_HOURS): the reminders say so. */
  officeTime?: boolean;
}

/**
 * The timing of a ticket of `office` (its tenant's): its claim and reminder times (its own, else the
 * deployment's), counted in its office time only, and saying so.
 */
export function sweepTiming(office: Office): SweepTiming {
  return {
    claimTimeoutMs: office.rules.claimTimeoutMs,
    remindMs: office.rules.remindMs,
    elapsed: (t0: number, t1: number) => officeTimeBetween(office.hours, t0, t1),
    officeTime: office.hours !== undefined,
  };
}

/** A waiting ticket times out after its reminders, and never before twice the claim timeout. */
export function timeoutMs(timing: SweepTiming): number {
  return Math.max((MAX_REMINDERS + 1) * timing.remindMs, 2 * timing.claimTimeoutMs);
}

/** `toldLate`: the user was told already (also under the key tickets from before `toldLateAt` used). */
export function dueSteps(ticket: Ticket, now: number, timing: SweepTiming, toldLate: boolean): HandoffStep[] {
  if (ticket.status !== 'open') return [];
  const steps: HandoffStep[] = [];
  const since = ticket.waitingSince ?? ticket.createdAt;
  const elapsed = (from: number): number => (timing.elapsed ? timing.elapsed(from, now) : now - from);
  if (elapsed(ticket.createdAt) >= timing.claimTimeoutMs && ticket.toldLateAt === undefined && !toldLate)
    steps.push({ kind: 'remind', to: 'user' });
  const sent = ticket.reminders ?? 0;
  const last = ticket.lastRemindAt ?? since;
  // Timed out only after every reminder went out and one more interval passed.
  if (elapsed(since) >= timeoutMs(timing) && sent >= MAX_REMINDERS && elapsed(last) >= timing.remindMs)
    return [...steps, { kind: 'timeOut' }];
  if (sent < MAX_REMINDERS && elapsed(last) >= timing.remindMs && ticket.thread)
    steps.push({
      kind: 'remind',
      to: 'agents',
      sent,
      since,
      waitedMs: elapsed(since),
      ...(timing.officeTime ? { officeTime: true } : {}),
    });
  return steps;
}
