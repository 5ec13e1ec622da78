/**
 * The response target (HANDOFF_FIRST_REPLY_S): from the claim to the claiming agent's first reply,
 * counted in office time. At 80% the ticket thread gets a warning; at 100% the ticket is escalated
 * (HANDOFF_ESCALATE is mentioned) and shows by how much the target was missed. Pure.
 */

export const WARN_AT = 0.8;

export interface TargetState {
  status: string;
  firstClaimedAt?: number;
  firstReplyAt?: number;
  targetWarnedAt?: number;
  escalatedAt?: number;
}

export type TargetStep = 'warn' | 'escalate' | undefined;

/** The step a claimed ticket owes now, given the office time since its first claim. */
export function targetStep(t: TargetState, targetMs: number | undefined, officeElapsedMs: number): TargetStep {
  if (targetMs === undefined || t.status !== 'claimed' || t.firstClaimedAt === undefined) return undefined;
  if (t.firstReplyAt !== undefined || t.escalatedAt !== undefined) return undefined;
  if (officeElapsedMs >= targetMs) return 'escalate';
  if (officeElapsedMs >= WARN_AT * targetMs && t.targetWarnedAt === undefined) return 'warn';
  return undefined;
}

/**
 * The "missed by" minutes the ticket message is refreshed for while the reply is still missing:
 * every 5 minutes in the first hour, then every hour, so an overdue ticket does not spend the
 * channel's edit budget once a minute. 0 until the first step (the escalation showed 1 min).
 */
export function missedStep(overMs: number): number {
  const min = Math.floor(overMs / 60_000);
  return min < 60 ? Math.floor(min / 5) * 5 : Math.floor(min / 60) * 60;
}

/** "Response target missed by 7 min" (at least 1 min: it is shown once the target has passed). */
export function missedByLine(overMs: number): string {
  return `Response target missed by ${Math.max(1, Math.ceil(overMs / 60_000))} min`;
}
