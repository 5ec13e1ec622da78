import type { StateStore } from '../../state/store';
import { gatherLead, touchLeadFacts } from '../handoff/lead-store';
import { keys, parseStored, toJson, turnSchema, type Turn } from './model';
import { z } from 'zod';

/** Tickets show the recent exchange; older turns are not needed by anyone. */
export const TRANSCRIPT_TURNS = 20;

const turnsSchema = z.array(turnSchema);

export async function readTranscript(store: StateStore, convId: string): Promise<Turn[]> {
  return parseStored(turnsSchema, await store.get(keys.transcript(convId))) ?? [];
}

/** How long a transcript is kept after its last turn when the caller names no retention (RETENTION_DAYS' default). */
export const DEFAULT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Appends with compare-and-set so a relay on another instance cannot overwrite a turn. Each turn
 * restarts the transcript's retention: it expires `retentionMs` after the conversation's last turn.
 * The turn's lead facts are gathered with it (handoff/lead-store.ts).
 */
export async function appendTurn(
  store: StateStore,
  convId: string,
  turn: Turn,
  // Required: a caller without it (handoff turns did) restarted the transcript at the default period.
  retentionMs: number,
): Promise<void> {
  const key = keys.transcript(convId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const raw = await store.get(key);
    const turns = parseStored(turnsSchema, raw) ?? [];
    const next = [...turns, turn].slice(-TRANSCRIPT_TURNS);
    if (await store.compareAndSet(key, raw, toJson(next), retentionMs)) break;
  }
  // The lead summary's facts, gathered as the turn arrives: they outlive the turn's place here.
  await gatherLead(store, convId, turn, retentionMs);
}

/** Restarts the transcript's retention without changing it (activity that adds no turn). */
export async function touchTranscript(store: StateStore, convId: string, retentionMs: number): Promise<void> {
  const key = keys.transcript(convId);
  const raw = await store.get(key);
  if (raw !== undefined) await store.compareAndSet(key, raw, raw, retentionMs);
  await touchLeadFacts(store, convId, retentionMs);
}
