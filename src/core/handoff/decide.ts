/**
 * The handoff state machine: `decide(ticket, event, who)` gives the ticket after the event and the
 * notices it owes, or a refusal that says why (nothing changes). Pure: no store, no platform, no
 * clock (the event carries its time). It asks the one permission table (permissions.ts) first, then
 * runs the event's step from one table of steps (steps.ts: a person's and the sweep's; hours/steps.ts:
 * the bridge's around the clock). What touches no ticket asks the same table through `permit`.
 * handoffs.ts loads the ticket, calls this, and stores the result with its notices in one step.
 */
import type { Actor } from '../surface';
import type { Decision, EventOf, HandoffEvent, Refused, Who } from './events';
import { HOURS_STEPS } from './hours/steps';
import { isEnded, type Ticket } from './model';
import { type Action, type Gate, outcome, type Role, type State } from './permissions';
import { claim, end, forward, note, open, rate, relay, release, remind, takeOver } from './steps';
import { refusalText } from './wording';

/** The state a ticket is in for the permission table (`none`: no ticket in progress). */
export function stateOf(ticket: Ticket | undefined): State {
  return ticket ? ticket.status : 'none';
}

/** The one role a person has towards a ticket (or, for `open` and the gates, towards the conversation's asker). */
export function roleOf(ticket: Ticket | undefined, who: Who, asker?: Actor): Role {
  if (who.kind === 'bridge') return 'bridge';
  const { actor } = who;
  const user = ticket?.user ?? asker;
  const userSurface = ticket?.userPlace.surface;
  if (ticket?.claimedBy?.id === actor.id && (who.agent || actor.isAdmin)) return 'claimer';
  if (user && user.id === actor.id && (!userSurface || userSurface === who.surface)) return 'asker';
  if (actor.isAdmin) return 'admin';
  if (who.agent) return 'agent';
  return 'other';
}

export function refusalOf(action: Action, ticket: Ticket | undefined, who: Who, asker?: Actor): Refused | undefined {
  const cell = outcome(action, roleOf(ticket, who, asker), stateOf(ticket));
  if (cell === 'allow') return undefined;
  // The bridge is told nothing: a step of its own that no longer applies is dropped quietly.
  return { refusal: refusalText(cell, action, ticket, asker), ...(who.kind === 'bridge' ? { quiet: true } : {}) };
}

/** What touches no ticket (the queue, away/back, Retry), asked of the same table: why not, or undefined. */
export function permit(gate: Gate, who: Who, asker?: Actor): Refused | undefined {
  return refusalOf(gate, undefined, who, asker);
}

type Step<K extends HandoffEvent['kind']> = (ticket: Ticket, event: EventOf<K>, who: Who) => Decision | Refused;

/** Every event on an existing ticket, by kind: the step that decides it once the table allowed it. */
const STEPS: { [K in Exclude<HandoffEvent['kind'], 'open'>]: Step<K> } = {
  claim,
  release,
  takeOver,
  close: end,
  timeOut: end,
  cancel: end,
  remind,
  rate,
  relay,
  note,
  forward,
  ...HOURS_STEPS,
};

export function decide(ticket: Ticket | undefined, event: HandoffEvent, who: Who): Decision | Refused {
  const asker = event.kind === 'open' ? event.opening.asker : undefined;
  const refused = refusalOf(event.kind, ticket, who, asker);
  if (refused) return refused;
  if (event.kind === 'open') return open(event.opening, event.at, who);
  if (!ticket) return { refusal: 'This ticket no longer exists.' };
  // One entry per kind (the mapped type checks it): the event is the one its step takes.
  const step = STEPS[event.kind] as unknown as (t: Ticket, e: HandoffEvent, w: Who) => Decision | Refused;
  return step(ticket, event, who);
}

/** Whether a decision ended the ticket (the conversation goes back to the bot). */
export function ends(before: Ticket | undefined, after: Ticket): boolean {
  return before !== undefined && !isEnded(before.status) && isEnded(after.status);
}
