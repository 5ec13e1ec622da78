/**
 * The lead facts of a conversation, kept with it: each turn adds what it tells (lead.ts's
 * `withMessage`) as it is written, so the ticket's summary covers the whole conversation, not only
 * the turns the transcript still holds, and no render scans the transcript again.
 */
import { z } from 'zod';
import { oldLayoutMayRemain } from '../../state/old-layout';
import type { StateStore } from '../../state/store';
import { convKeys, legacyKeys, parseStored, toJson, type ConvRef, type Turn } from '../conversations/model';
import { appendByCas, type LastWritten } from '../conversations/last-written';
import { convView, readEither, readMoved } from '../conversations/records';
import { noFacts, withMessage, type LeadFacts } from './lead';

/** The facts as kept in the tenant's part (those kept at their old key before an upgrade are moved there). */
function storedFacts(store: StateStore, conv: ConvRef, retentionMs: number) {
  return readMoved(store, convView(store, conv), convKeys.lead(conv.id), legacyKeys.lead(conv.id), retentionMs);
}

const factsSchema = z.object({
  emails: z.array(z.string()),
  phones: z.array(z.string()),
  listings: z.array(z.string()),
  city: z.string().optional(),
  budget: z.string().optional(),
  bedrooms: z.number().optional(),
});

/** Who wrote a turn, as the lead sees it: the chatbot's answers, an agent's replies, or the user. */
function sourceOf(turn: Turn): 'user' | 'answer' | undefined {
  // The author the answering turn writes its answers under (conversations/answer-turn.ts).
  if (turn.author === 'Bot') return 'answer';
  if (turn.author.endsWith(' (agent)')) return undefined;
  return 'user';
}

/** The facts gathered so far; undefined for a conversation from before they were kept. */
export async function readLeadFacts(store: StateStore, conv: ConvRef): Promise<LeadFacts | undefined> {
  // Facts still at their old key are read there: the next turn moves them, with their retention.
  const view = convView(store, conv);
  return parseStored(factsSchema, await readEither(store, view, convKeys.lead(conv.id), legacyKeys.lead(conv.id)));
}

/** The facts of a list of turns (a conversation whose facts were not kept: its transcript). */
export function factsOfTurns(turns: Turn[]): LeadFacts {
  return turns.reduce((facts, turn) => gathered(facts, turn), noFacts());
}

function gathered(facts: LeadFacts, turn: Turn): LeadFacts {
  const from = sourceOf(turn);
  return from ? withMessage(facts, from, turn.text.replace(/^\(asked for a human[^)]{0,200}\) /, '')) : facts;
}

/**
 * Adds one turn's facts (compare-and-set: turns written at once on two instances both count), kept
 * as long as the transcript (`retentionMs` after the last turn). The facts this instance last wrote
 * are offered first, unread (conversations/last-written.ts); a stale guess is refused and read again.
 */
export async function gatherLead(
  store: StateStore,
  memo: LastWritten,
  conv: ConvRef,
  turn: Turn,
  retentionMs: number,
): Promise<void> {
  if (!sourceOf(turn)) return;
  const view = convView(store, conv);
  const key = convKeys.lead(conv.id);
  await appendByCas(
    memo,
    { tenant: conv.tenant, key },
    {
      read: () => storedFacts(store, conv, retentionMs),
      reread: () => view.get(key),
      next: (raw) => toJson(gathered(parseStored(factsSchema, raw) ?? noFacts(), turn)),
      write: (expected, next) => view.compareAndSet(key, expected, next, retentionMs),
    },
    5,
  );
}

/** Restarts the facts' retention with the transcript's (activity that adds no turn). */
export async function touchLeadFacts(store: StateStore, conv: ConvRef, retentionMs: number): Promise<void> {
  // One command, as the transcript's (a touch never writes back older facts); old ones are moved.
  const touched = await convView(store, conv).touch(convKeys.lead(conv.id), retentionMs);
  if (!touched && oldLayoutMayRemain(store)) await storedFacts(store, conv, retentionMs);
}
