/**
 * Who may do what in handoff: THE permission table (action × role × state). Every ticket event
 * (a person's or the bridge's, offers and escalations included) goes through `decide` (decide.ts),
 * which asks this table first; what touches no ticket (the queue, away/back, Retry) asks it through
 * `permit` (decide.ts) with the same roles. No other file states a permission.
 * test/core/handoff/permissions.test.ts checks every cell.
 *
 * A person acting on a ticket has exactly one role, the first that fits, in this order:
 *   claimer  the agent holding the (claimed) ticket, while they are still an agent;
 *   asker    the user who started the conversation (the ticket's user);
 *   admin    a bridge admin (acts for the asker: may hand off and cancel for them);
 *   agent    a member of the handoff channel (Slack: conversations.members; Discord: ViewChannel);
 *   other    anyone else (a participant in the user's thread, a viewer of the handoff channel).
 * The bridge itself (the sweep, the notice outbox giving up) acts as `bridge`.
 *
 * An asker is the customer of their own ticket even when they are an agent or an admin: they do
 * not claim or close it (another agent does), they cancel and rate it.
 */

/** The events of a ticket's life: what `decide` decides. */
export const TICKET_ACTIONS = [
  'open',
  'claim',
  'release',
  'takeOver',
  'close',
  'cancel',
  'timeOut',
  'remind',
  'rate',
  /** The claiming agent's message in the ticket thread, to the user. */
  'relay',
  /** A message in the ticket thread kept for the team ("note:", or by an agent not holding it). */
  'note',
  /** A message in the user's thread while in handoff, to the ticket thread. */
  'forward',
  /** Around the clock (hours/steps.ts): a round-robin offer to the next agent. */
  'offer',
  /** The response target's warning, its escalation, the "missed by" refresh of the ticket message. */
  'warnTarget',
  'escalate',
  'missedBy',
] as const;

/** What touches no ticket (state `none`): `/handoff queue` and the App Home, `/handoff away|back`, Retry. */
export const GATES = ['queue', 'availability', 'retry'] as const;

export const ACTIONS = [...TICKET_ACTIONS, ...GATES] as const;
export type Action = (typeof ACTIONS)[number];
export type Gate = (typeof GATES)[number];

export const ROLES = ['claimer', 'asker', 'admin', 'agent', 'other', 'bridge'] as const;
export type Role = (typeof ROLES)[number];

/** `none`: the conversation has no ticket in progress (only `open` applies). */
export const STATES = ['none', 'open', 'claimed', 'closed', 'cancelled', 'timedout'] as const;
export type State = (typeof STATES)[number];

/** Why a cell refuses; decide.ts words each for the person refused. */
export const REFUSALS = [
  'noTicket',
  'inHandoff',
  'notAgent',
  'notAsker',
  'notClaimer',
  'unclaimed',
  'alreadyClaimed',
  'holdsIt',
  'waiting',
  'notClosed',
  'ended',
  'bridgeOnly',
  'notBridge',
  /** A bridge step whose time is not this state's (an offer once claimed, a warning while waiting). */
  'notDue',
] as const;
export type Refusal = (typeof REFUSALS)[number];
export type Outcome = 'allow' | Refusal;

type Row = Record<State, Outcome>;
type Cells = Record<Role, Row>;

const ENDED = { closed: 'ended', cancelled: 'ended', timedout: 'ended' } as const;

/** Agents' work on a ticket in progress: any agent may; askers and others are not agents. */
function agentsOnly(cells: Record<'claimer' | 'admin' | 'agent', Row>): Cells {
  const refused: Row = { none: 'noTicket', open: 'notAgent', claimed: 'notAgent', ...ENDED };
  return { ...cells, asker: refused, other: refused, bridge: notBridge() };
}

function row(none: Outcome, open: Outcome, claimed: Outcome, ended: Outcome = 'ended'): Row {
  return { none, open, claimed, closed: ended, cancelled: ended, timedout: ended };
}

function notBridge(): Row {
  return row('notBridge', 'notBridge', 'notBridge', 'notBridge');
}

function bridgeOnly(bridge: Row): Cells {
  const people = row('noTicket', 'bridgeOnly', 'bridgeOnly', 'bridgeOnly');
  return { claimer: people, asker: people, admin: people, agent: people, other: people, bridge };
}

/** An action on no ticket: each role's outcome, the same in every state. */
function gate(cells: Record<Role, Outcome>): Cells {
  const always = (o: Outcome): Row => row(o, o, o, o);
  return {
    claimer: always(cells.claimer),
    asker: always(cells.asker),
    admin: always(cells.admin),
    agent: always(cells.agent),
    other: always(cells.other),
    bridge: always(cells.bridge),
  };
}

/** The queue and availability gates are one rule (agents' own work, which admins may see too), so one row. */
const AGENTS_AND_ADMINS: Cells = gate({
  claimer: 'allow',
  asker: 'notAgent',
  admin: 'allow',
  agent: 'allow',
  other: 'notAgent',
  bridge: 'notBridge',
});

export const PERMISSIONS: Record<Action, Cells> = {
  // Handing a conversation to a human: its asker, or an admin for them; never a participant.
  open: {
    claimer: row('notAsker', 'inHandoff', 'inHandoff', 'notAsker'),
    asker: row('allow', 'inHandoff', 'inHandoff', 'allow'),
    admin: row('allow', 'inHandoff', 'inHandoff', 'allow'),
    agent: row('notAsker', 'inHandoff', 'inHandoff', 'notAsker'),
    other: row('notAsker', 'inHandoff', 'inHandoff', 'notAsker'),
    bridge: notBridge(),
  },
  claim: agentsOnly({
    claimer: row('noTicket', 'allow', 'alreadyClaimed'),
    admin: row('noTicket', 'allow', 'alreadyClaimed'),
    agent: row('noTicket', 'allow', 'alreadyClaimed'),
  }),
  // Only the holder puts a ticket back in the queue (an admin closes or takes it over instead).
  release: agentsOnly({
    claimer: row('noTicket', 'waiting', 'allow'),
    admin: row('noTicket', 'waiting', 'notClaimer'),
    agent: row('noTicket', 'waiting', 'notClaimer'),
  }),
  takeOver: agentsOnly({
    claimer: row('noTicket', 'waiting', 'holdsIt'),
    admin: row('noTicket', 'waiting', 'allow'),
    agent: row('noTicket', 'waiting', 'allow'),
  }),
  // The holder closes; an admin closes any ticket, even one nobody claimed.
  close: agentsOnly({
    claimer: row('noTicket', 'unclaimed', 'allow'),
    admin: row('noTicket', 'allow', 'allow'),
    agent: row('noTicket', 'unclaimed', 'notClaimer'),
  }),
  // The asker's way back to the bot (agents Close instead); the bridge calls off a ticket it could not post.
  cancel: {
    claimer: row('noTicket', 'notAsker', 'notAsker'),
    asker: row('noTicket', 'allow', 'allow'),
    admin: row('noTicket', 'allow', 'allow'),
    agent: row('noTicket', 'notAsker', 'notAsker'),
    other: row('noTicket', 'notAsker', 'notAsker'),
    bridge: row('noTicket', 'allow', 'allow'),
  },
  timeOut: bridgeOnly(row('noTicket', 'allow', 'notBridge')),
  remind: bridgeOnly(row('noTicket', 'allow', 'notBridge')),
  // The user who was helped rates it, once the ticket is closed (not cancelled or timed out).
  rate: {
    claimer: row('noTicket', 'notAsker', 'notAsker', 'notAsker'),
    asker: { ...row('noTicket', 'notClosed', 'notClosed', 'notClosed'), closed: 'allow' },
    admin: row('noTicket', 'notAsker', 'notAsker', 'notAsker'),
    agent: row('noTicket', 'notAsker', 'notAsker', 'notAsker'),
    other: row('noTicket', 'notAsker', 'notAsker', 'notAsker'),
    bridge: notBridge(),
  },
  relay: agentsOnly({
    claimer: row('noTicket', 'waiting', 'allow'),
    admin: row('noTicket', 'waiting', 'notClaimer'),
    agent: row('noTicket', 'waiting', 'notClaimer'),
  }),
  note: agentsOnly({
    claimer: row('noTicket', 'allow', 'allow'),
    admin: row('noTicket', 'allow', 'allow'),
    agent: row('noTicket', 'allow', 'allow'),
  }),
  // Anyone in the user's thread may still write: the asker, and participants asking their questions.
  forward: {
    claimer: row('noTicket', 'allow', 'allow'),
    asker: row('noTicket', 'allow', 'allow'),
    admin: row('noTicket', 'allow', 'allow'),
    agent: row('noTicket', 'allow', 'allow'),
    other: row('noTicket', 'allow', 'allow'),
    bridge: notBridge(),
  },
  // Around the clock, the bridge's own: offered while waiting; warned and escalated once claimed.
  offer: bridgeOnly(row('noTicket', 'allow', 'notDue')),
  warnTarget: bridgeOnly(row('noTicket', 'notDue', 'allow')),
  escalate: bridgeOnly(row('noTicket', 'notDue', 'allow')),
  missedBy: bridgeOnly(row('noTicket', 'notDue', 'allow')),
  // The queue (`/handoff queue`, Slack's App Home) and one's availability for offers.
  queue: AGENTS_AND_ADMINS,
  availability: AGENTS_AND_ADMINS,
  // Retry asks the same question again: the person who asked it, or an admin.
  retry: gate({
    claimer: 'notAsker',
    asker: 'allow',
    admin: 'allow',
    agent: 'notAsker',
    other: 'notAsker',
    bridge: 'notBridge',
  }),
};

export function outcome(action: Action, role: Role, state: State): Outcome {
  return PERMISSIONS[action][role][state];
}
