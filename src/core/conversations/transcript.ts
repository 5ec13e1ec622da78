import type { StateStore } from '../../state/store';
import { keys, parseStored, toJson, turnSchema, type Turn } from './model';
import { z } from 'zod';

/** Tickets show the recent exchange; older turns are not needed by anyone. */
export const TRANSCRIPT_TURNS = 20;

const turnsSchema = z.array(turnSchema);

export async function readTranscript(store: StateStore, convId: string): Promise<Turn[]> {
  return parseStored(turnsSchema, await store.get(keys.transcript(convId))) ?? [];
}

/** Appends with compare-and-set so a relay on another instance cannot overwrite a turn. */
export async function appendTurn(store: StateStore, convId: string, turn: Turn): Promise<void> {
  const key = keys.transcript(convId);
  for (let attempt = 0; attempt < 5; attempt++) {
    const raw = await store.get(key);
    const turns = parseStored(turnsSchema, raw) ?? [];
    const next = [...turns, turn].slice(-TRANSCRIPT_TURNS);
    if (await store.compareAndSet(key, raw, toJson(next))) return;
  }
}
