/**
 * The vocabulary of the handoff state machine: who acts, the events `decide` (decide.ts) decides,
 * and what it answers (a decision, or a refusal). Types only, plus the bridge as an actor; the
 * steps themselves live in steps.ts (a person's) and hours/steps.ts (the bridge's around the clock).
 */
import type { Actor, Place, SurfaceName } from '../surface';
import type { Ticket } from './model';
import type { Notice } from './notice';

/** Who acts: a person (where they act, and whether they are an agent: see who.ts), or the bridge itself. */
export type Who = { kind: 'bridge' } | { kind: 'person'; actor: Actor; surface: SurfaceName; agent: boolean };

export const BRIDGE: Who = { kind: 'bridge' };
/** How the bridge is named on a ticket it ended. */
export const BRIDGE_ACTOR: Actor = { id: 'bridge', name: 'the bridge', isAdmin: false };

/** A new ticket's particulars, chosen by the caller (ids, the configured words and channel). */
export interface Opening {
  id: string;
  convId: string;
  /** The user's conversation thread. */
  place: Place;
  /** Who started the conversation: the ticket is theirs, whoever asks for it. */
  asker: Actor;
  reason: string;
  noticeText: string;
  /** The handoff channel. */
  channel: Place;
  /** Opened outside office hours: marked so. */
  afterHours?: boolean;
  /** Tickets are e-mailed (SMTP and an address): an after-hours ticket owes its e-mail. */
  mails?: boolean;
  /** The office it opens in (Ticket.office). */
  office?: { chatbotId: string; kind: 'own' | 'operator' | 'shared' };
}

/** The bridge's steps of handoff around the clock (hours/steps.ts). */
type HoursStepBody =
  /** `previousAt`: the offer it replaces (none: the first), so two sweeps cannot both offer. */
  | { kind: 'offer'; to: Actor; key: string; mention: string; offerMs: number; previousAt?: number }
  | { kind: 'warnTarget'; leftMs: number; targetMs: number }
  | { kind: 'escalate'; mentions: string[]; targetMs: number }
  /** The ticket message refreshed so "missed by N min" stays current (`step`: response-target.ts). */
  | { kind: 'missedBy'; step: number };

/** One step of a ticket's life; with its time (`HandoffEvent`) it is what `decide` decides. */
export type HandoffStep =
  | { kind: 'open'; opening: Opening }
  | { kind: 'claim' }
  | { kind: 'release' }
  /** `from`: the holder the confirmation named; the take-over fails if the ticket changed hands. */
  | { kind: 'takeOver'; from: string }
  | { kind: 'close' }
  /** `unreachable`: the bridge calls off a ticket whose message could not be posted. */
  | { kind: 'cancel'; unreachable?: boolean }
  | { kind: 'timeOut' }
  /** To the user once ("nobody has picked it up yet"), or reminder `sent + 1` to the agents in the wait since `since`. */
  | { kind: 'remind'; to: 'user' }
  /**
   * `waitedMs`: the wait as it counts (office time with HANDOFF_HOURS, `officeTime` then; else all of
   * it since `since`). `mails`: tickets are e-mailed, so the last reminder also owes the ticket's e-mail.
   */
  | {
      kind: 'remind';
      to: 'agents';
      sent: number;
      since: number;
      waitedMs?: number;
      officeTime?: boolean;
      mails?: boolean;
    }
  | { kind: 'rate'; score: number; comment?: string }
  | { kind: 'relay'; text: string; files: string[] }
  | { kind: 'note'; text: string }
  | { kind: 'forward'; text: string; files: string[] }
  | HoursStepBody;
export type HandoffEvent = { at: number } & HandoffStep;
export type EventOf<K extends HandoffEvent['kind']> = Extract<HandoffEvent, { kind: K }>;

/** A line for the conversation's transcript (the ticket shows it; the lead reads it). */
export interface TurnLine {
  author: string;
  text: string;
}

export interface Decision {
  ticket: Ticket;
  notices: Notice[];
  /** Told to the person who acted, ephemerally, once the change is stored. */
  reply?: string;
  turn?: TurnLine;
}
/** `quiet`: a step the bridge no longer needs (another sweep took it); nobody is told. */
export interface Refused {
  refusal: string;
  quiet?: boolean;
}
