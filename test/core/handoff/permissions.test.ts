/**
 * The handoff permission table, cell by cell: every action for every role in every state, with the
 * expected outcome written out here (independently of src/core/handoff/permissions.ts). Then
 * `decide` is driven with a person of each role on a ticket in each state, so the table is what
 * the state machine actually applies: an allowed cell changes the ticket, a refused one does not.
 */
import { decide, permit, roleOf } from '../../../src/core/handoff/decide';
import { BRIDGE, type Decision, type HandoffStep, type Refused, type Who } from '../../../src/core/handoff/events';
import type { Ticket } from '../../../src/core/handoff/model';
import {
  ACTIONS,
  type Action,
  GATES,
  type Gate,
  outcome,
  ROLES,
  type Role,
  STATES,
} from '../../../src/core/handoff/permissions';
import type { Actor } from '../../../src/core/surface';

// prettier-ignore
const EXPECTED = `
action    role     | none       open        claimed         closed      cancelled   timedout
open      claimer  | notAsker   inHandoff   inHandoff       notAsker    notAsker    notAsker
open      asker    | allow      inHandoff   inHandoff       allow       allow       allow
open      admin    | allow      inHandoff   inHandoff       allow       allow       allow
open      agent    | notAsker   inHandoff   inHandoff       notAsker    notAsker    notAsker
open      other    | notAsker   inHandoff   inHandoff       notAsker    notAsker    notAsker
open      bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
claim     claimer  | noTicket   allow       alreadyClaimed  ended       ended       ended
claim     asker    | noTicket   notAgent    notAgent        ended       ended       ended
claim     admin    | noTicket   allow       alreadyClaimed  ended       ended       ended
claim     agent    | noTicket   allow       alreadyClaimed  ended       ended       ended
claim     other    | noTicket   notAgent    notAgent        ended       ended       ended
claim     bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
release   claimer  | noTicket   waiting     allow           ended       ended       ended
release   asker    | noTicket   notAgent    notAgent        ended       ended       ended
release   admin    | noTicket   waiting     notClaimer      ended       ended       ended
release   agent    | noTicket   waiting     notClaimer      ended       ended       ended
release   other    | noTicket   notAgent    notAgent        ended       ended       ended
release   bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
takeOver  claimer  | noTicket   waiting     holdsIt         ended       ended       ended
takeOver  asker    | noTicket   notAgent    notAgent        ended       ended       ended
takeOver  admin    | noTicket   waiting     allow           ended       ended       ended
takeOver  agent    | noTicket   waiting     allow           ended       ended       ended
takeOver  other    | noTicket   notAgent    notAgent        ended       ended       ended
takeOver  bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
close     claimer  | noTicket   unclaimed   allow           ended       ended       ended
close     asker    | noTicket   notAgent    notAgent        ended       ended       ended
close     admin    | noTicket   allow       allow           ended       ended       ended
close     agent    | noTicket   unclaimed   notClaimer      ended       ended       ended
close     other    | noTicket   notAgent    notAgent        ended       ended       ended
close     bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
cancel    claimer  | noTicket   notAsker    notAsker        ended       ended       ended
cancel    asker    | noTicket   allow       allow           ended       ended       ended
cancel    admin    | noTicket   allow       allow           ended       ended       ended
cancel    agent    | noTicket   notAsker    notAsker        ended       ended       ended
cancel    other    | noTicket   notAsker    notAsker        ended       ended       ended
cancel    bridge   | noTicket   allow       allow           ended       ended       ended
timeOut   claimer  | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
timeOut   asker    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
timeOut   admin    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
timeOut   agent    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
timeOut   other    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
timeOut   bridge   | noTicket   allow       notBridge       ended       ended       ended
remind    claimer  | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
remind    asker    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
remind    admin    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
remind    agent    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
remind    other    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
remind    bridge   | noTicket   allow       notBridge       ended       ended       ended
rate      claimer  | noTicket   notAsker    notAsker        notAsker    notAsker    notAsker
rate      asker    | noTicket   notClosed   notClosed       allow       notClosed   notClosed
rate      admin    | noTicket   notAsker    notAsker        notAsker    notAsker    notAsker
rate      agent    | noTicket   notAsker    notAsker        notAsker    notAsker    notAsker
rate      other    | noTicket   notAsker    notAsker        notAsker    notAsker    notAsker
rate      bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
relay     claimer  | noTicket   waiting     allow           ended       ended       ended
relay     asker    | noTicket   notAgent    notAgent        ended       ended       ended
relay     admin    | noTicket   waiting     notClaimer      ended       ended       ended
relay     agent    | noTicket   waiting     notClaimer      ended       ended       ended
relay     other    | noTicket   notAgent    notAgent        ended       ended       ended
relay     bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
note      claimer  | noTicket   allow       allow           ended       ended       ended
note      asker    | noTicket   notAgent    notAgent        ended       ended       ended
note      admin    | noTicket   allow       allow           ended       ended       ended
note      agent    | noTicket   allow       allow           ended       ended       ended
note      other    | noTicket   notAgent    notAgent        ended       ended       ended
note      bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
forward   claimer  | noTicket   allow       allow           ended       ended       ended
forward   asker    | noTicket   allow       allow           ended       ended       ended
forward   admin    | noTicket   allow       allow           ended       ended       ended
forward   agent    | noTicket   allow       allow           ended       ended       ended
forward   other    | noTicket   allow       allow           ended       ended       ended
forward   bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
offer     claimer  | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
offer     asker    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
offer     admin    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
offer     agent    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
offer     other    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
offer     bridge   | noTicket   allow       notDue          ended       ended       ended
warnTarget claimer | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
warnTarget asker   | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
warnTarget admin   | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
warnTarget agent   | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
warnTarget other   | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
warnTarget bridge  | noTicket   notDue      allow           ended       ended       ended
escalate  claimer  | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
escalate  asker    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
escalate  admin    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
escalate  agent    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
escalate  other    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
escalate  bridge   | noTicket   notDue      allow           ended       ended       ended
missedBy  claimer  | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
missedBy  asker    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
missedBy  admin    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
missedBy  agent    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
missedBy  other    | noTicket   bridgeOnly  bridgeOnly      bridgeOnly  bridgeOnly  bridgeOnly
missedBy  bridge   | noTicket   notDue      allow           ended       ended       ended
queue     claimer  | allow      allow       allow           allow       allow       allow
queue     asker    | notAgent   notAgent    notAgent        notAgent    notAgent    notAgent
queue     admin    | allow      allow       allow           allow       allow       allow
queue     agent    | allow      allow       allow           allow       allow       allow
queue     other    | notAgent   notAgent    notAgent        notAgent    notAgent    notAgent
queue     bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
availability claimer | allow    allow       allow           allow       allow       allow
availability asker | notAgent   notAgent    notAgent        notAgent    notAgent    notAgent
availability admin | allow      allow       allow           allow       allow       allow
availability agent | allow      allow       allow           allow       allow       allow
availability other | notAgent   notAgent    notAgent        notAgent    notAgent    notAgent
availability bridge | notBridge notBridge   notBridge       notBridge   notBridge   notBridge
retry     claimer  | notAsker   notAsker    notAsker        notAsker    notAsker    notAsker
retry     asker    | allow      allow       allow           allow       allow       allow
retry     admin    | allow      allow       allow           allow       allow       allow
retry     agent    | notAsker   notAsker    notAsker        notAsker    notAsker    notAsker
retry     other    | notAsker   notAsker    notAsker        notAsker    notAsker    notAsker
retry     bridge   | notBridge  notBridge   notBridge       notBridge   notBridge   notBridge
`;

const rows = EXPECTED.trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [head = '', cells = ''] = line.split('|');
    const [action, role] = head.trim().split(/\s+/) as [Action, Role];
    return { action, role, cells: cells.trim().split(/\s+/) };
  });

const AT = Date.parse('2026-03-02T10:00:00.000Z');
const ASKER: Actor = { id: 'U-asker', name: 'Asker', isAdmin: false };
const CLAIMER: Actor = { id: 'A-claimer', name: 'Claimer', isAdmin: false };
const PLACE = { surface: 'slack' as const, workspace: 'T1', channel: 'C-users', thread: '1.0' };
const CHANNEL = { surface: 'slack' as const, workspace: 'T1', channel: 'C-handoff' };

/** `escalated`: the response target was missed already (what the "missed by" refresh is for). */
function ticketIn(state: (typeof STATES)[number], escalated = false): Ticket | undefined {
  if (state === 'none') return undefined;
  return {
    id: 'T1',
    convId: 'conv1',
    status: state,
    user: ASKER,
    userPlace: PLACE,
    reason: 'help',
    createdAt: AT - 60_000,
    waitingSince: AT - 60_000,
    thread: { ...CHANNEL, thread: '2.0' },
    ...(state === 'open' ? {} : { claimedBy: CLAIMER, claimedAt: AT - 30_000 }),
    ...(state === 'closed' || state === 'cancelled' || state === 'timedout'
      ? { endedBy: CLAIMER, endedAt: AT - 10_000 }
      : {}),
    ...(escalated ? { escalatedAt: AT - 5_000 } : {}),
  };
}

/** A person of `role` towards a ticket in `state` (a claimer only exists where someone claimed). */
function personOf(role: Role): Who {
  const person = (actor: Actor, agent: boolean): Who => ({ kind: 'person', actor, surface: 'slack', agent });
  switch (role) {
    case 'claimer':
      return person(CLAIMER, true);
    case 'asker':
      return person(ASKER, false);
    case 'admin':
      return person({ id: 'U-admin', name: 'Admin', isAdmin: true }, false);
    case 'agent':
      return person({ id: 'A-agent', name: 'Agent', isAdmin: false }, true);
    case 'other':
      return person({ id: 'U-other', name: 'Other', isAdmin: false }, false);
    case 'bridge':
      return BRIDGE;
  }
}

function stepOf(action: Exclude<Action, Gate>): HandoffStep {
  switch (action) {
    case 'open':
      return {
        kind: 'open',
        opening: {
          id: 'T2',
          convId: 'conv1',
          place: PLACE,
          asker: ASKER,
          reason: 'help',
          noticeText: 'hi',
          channel: CHANNEL,
        },
      };
    case 'takeOver':
      return { kind: 'takeOver', from: CLAIMER.id };
    case 'cancel':
      return { kind: 'cancel' };
    case 'remind':
      return { kind: 'remind', to: 'user' };
    case 'rate':
      return { kind: 'rate', score: 4 };
    case 'relay':
    case 'forward':
      return { kind: action, text: 'hello', files: [] };
    case 'note':
      return { kind: 'note', text: 'note: hello' };
    case 'offer':
      return {
        kind: 'offer',
        to: { id: 'A-next', name: 'Next', isAdmin: false },
        key: 'k',
        mention: '@next',
        offerMs: 60_000,
      };
    case 'warnTarget':
      return { kind: 'warnTarget', leftMs: 60_000, targetMs: 600_000 };
    case 'escalate':
      return { kind: 'escalate', mentions: ['@lead'], targetMs: 600_000 };
    case 'missedBy':
      return { kind: 'missedBy', step: 1 };
    default:
      return { kind: action };
  }
}

describe('handoff permission table', () => {
  it('lists every action for every role, in every state', () => {
    expect(rows.map((r) => `${r.action}/${r.role}`)).toEqual(ACTIONS.flatMap((a) => ROLES.map((r) => `${a}/${r}`)));
    for (const r of rows) expect(r.cells).toHaveLength(STATES.length);
  });

  describe.each(rows)('$action by $role', ({ action, role, cells }) => {
    it.each(STATES.map((state, i) => [state, cells[i]!] as const))('in state %s: %s', (state, expected) => {
      expect(outcome(action, role, state)).toBe(expected);
      if (isGate(action)) return gateDecided(action, role, state, expected);
      // Whom the state machine takes for this role is this role (a claimer exists only once claimed).
      // `open` is decided on the conversation's ticket in progress, if any (an ended one is no longer its).
      const ticket =
        action === 'open' && state !== 'open' && state !== 'claimed'
          ? undefined
          : ticketIn(state, action === 'missedBy');
      const who = personOf(role);
      const decided: Decision | Refused = decide(
        ticket,
        { ...stepOf(action), at: AT } as Parameters<typeof decide>[1],
        who,
      );
      // Nobody holds a ticket that is not claimed (or not in progress, for `open`): such cells are never met.
      if (role === 'claimer' && !ticket?.claimedBy) return;
      expect(roleOf(ticket, who, ASKER)).toBe(role);
      if (expected === 'allow') {
        expect('refusal' in decided).toBe(false);
        expect((decided as Decision).notices.length).toBeGreaterThan(0);
      } else {
        expect(decided).toHaveProperty('refusal');
        expect((decided as Refused).refusal.length).toBeGreaterThan(0);
      }
    });
  });
});

function isGate(action: Action): action is Gate {
  return (GATES as readonly Action[]).includes(action);
}

/**
 * A gate touches no ticket: it is met in state `none` only, by whoever acts towards the asker of the
 * question or conversation (a claimer exists only on a ticket). `permit` applies the cell.
 */
function gateDecided(gate: Gate, role: Role, state: (typeof STATES)[number], expected: string): void {
  if (state !== 'none' || role === 'claimer') return;
  const who = personOf(role);
  expect(roleOf(undefined, who, ASKER)).toBe(role);
  const refused = permit(gate, who, ASKER);
  if (expected === 'allow') expect(refused).toBeUndefined();
  else expect(refused?.refusal.length).toBeGreaterThan(0);
}
