import { oldLayoutMayRemain } from '../../state/old-layout';
import type { StateStore } from '../../state/store';
import { gatherLead, touchLeadFacts } from '../handoff/lead-store';
import { convKeys, legacyKeys, parseStored, toJson, turnSchema, type ConvRef, type Turn } from './model';
import { convView, readEither, readMoved } from './records';
import { z } from 'zod';
import type { CoreMemory } from '../memory';
import { appendByCas, lastWritten } from './last-written';

/** Tickets show the recent exchange; older turns are not needed by anyone. */
export const TRANSCRIPT_TURNS = 20;

/** How long a transcript is kept after its last turn when the caller names no retention (RETENTION_DAYS' default). */
export const DEFAULT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

const turnsSchema = z.array(turnSchema);

/** The transcript as kept in the tenant's part (one kept at its old key before an upgrade is moved there). */
function storedTranscript(store: StateStore, conv: ConvRef, retentionMs: number) {
  return readMoved(
    store,
    convView(store, conv),
    convKeys.transcript(conv.id),
    legacyKeys.transcript(conv.id),
    retentionMs,
  );
}

/** The transcript (one still at its old key is read there: its next turn moves it, with its retention). */
export async function readTranscript(store: StateStore, conv: ConvRef): Promise<Turn[]> {
  const view = convView(store, conv);
  const raw = await readEither(store, view, convKeys.transcript(conv.id), legacyKeys.transcript(conv.id));
  return parseStored(turnsSchema, raw) ?? [];
}

/**
 * Appends with compare-and-set so a relay on another instance cannot overwrite a turn. Each turn
 * restarts the transcript's retention: it expires `retentionMs` after the conversation's last turn.
 * The turn's lead facts are gathered with it (handoff/lead-store.ts). What this instance last wrote
 * is offered first, unread (last-written.ts): the compare-and-set still refuses a stale guess.
 */
export async function appendTurn(
  ctx: { store: StateStore; memory: CoreMemory },
  conv: ConvRef,
  turn: Turn,
  // Required: a caller without it (handoff turns did) restarted the transcript at the default period.
  retentionMs: number,
): Promise<void> {
  const { store } = ctx;
  const view = convView(store, conv);
  const key = convKeys.transcript(conv.id);
  const memo = lastWritten(ctx.memory);
  await appendByCas(
    memo,
    { tenant: conv.tenant, key },
    {
      read: () => storedTranscript(store, conv, retentionMs),
      reread: () => view.get(key),
      next: (raw) => toJson([...(parseStored(turnsSchema, raw) ?? []), turn].slice(-TRANSCRIPT_TURNS)),
      write: (expected, next) => view.compareAndSet(key, expected, next, retentionMs),
    },
    5,
  );
  // The lead summary's facts, gathered as the turn arrives: they outlive the turn's place here.
  await gatherLead(store, memo, conv, turn, retentionMs);
}

/** Restarts the transcript's retention without changing it (activity that adds no turn). */
export async function touchTranscript(store: StateStore, conv: ConvRef, retentionMs: number): Promise<void> {
  // One command (no read, no write of the value): a touch can never write back an older transcript.
  const touched = await convView(store, conv).touch(convKeys.transcript(conv.id), retentionMs);
  // One still at its old key is moved, with the retention from now.
  if (!touched && oldLayoutMayRemain(store)) await storedTranscript(store, conv, retentionMs);
  await touchLeadFacts(store, conv, retentionMs);
}
