/**
 * Component custom ids (at most 100 characters). Core's buttons carry `b|<action>|<value>`; when that
 * is too long the pair is kept in the store and the id carries a key. Form controls have their own
 * prefixes so the surface can route them without core.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Button } from '../../core/surface';
import { readMoving } from '../../state/moved-records';
import type { StateStore } from '../../state/store';
import { discordRecords } from './records';

const MAX_ID = 100;
const STORED_BUTTON_TTL_MS = 30 * 24 * 3600 * 1000;
const storedButtonSchema = z.object({ action: z.string(), value: z.string() });

export type ParsedId =
  | { kind: 'action'; action: string; value: string }
  | { kind: 'form-group'; session: string; chunk: number }
  | { kind: 'form-submit'; session: string }
  | { kind: 'form-cancel'; session: string }
  | { kind: 'form-modal'; session: string; chunk: number; submit: boolean }
  | { kind: 'ask-photos' }
  | { kind: 'unknown' };

export function newKey(): string {
  return randomBytes(9).toString('base64url');
}

/** `workspace`: the place's the message is posted in (a server, a DM user's `@me:<channel>`), whose part keeps a long button. */
export async function buttonId(store: StateStore, workspace: string, b: Button): Promise<string> {
  const inline = `b|${b.action}|${b.value}`;
  if (inline.length <= MAX_ID) return inline;
  const key = newKey();
  const r = discordRecords.button(store, workspace, key);
  await r.view.set(r.key, { action: b.action, value: b.value }, STORED_BUTTON_TTL_MS);
  return `B|${key}`;
}

export const formIds = {
  group: (session: string, chunk: number): string => `fg|${session}|${chunk}`,
  submit: (session: string): string => `fs|${session}`,
  cancel: (session: string): string => `fc|${session}`,
  modal: (session: string, chunk: number, submit: boolean): string => `fm|${session}|${chunk}|${submit ? 1 : 0}`,
};

/** `workspace`: the place's where the component was used (interactionWorkspace); a long button is read in that part only. */
export async function parseId(store: StateStore, workspace: string, id: string): Promise<ParsedId> {
  const [kind, a = '', ...rest] = id.split('|');
  switch (kind) {
    case 'b':
      return { kind: 'action', action: a, value: rest.join('|') };
    case 'B': {
      const r = discordRecords.button(store, workspace, a);
      const parsed = storedButtonSchema.safeParse(
        await readMoving(store, r.view, r.key, r.legacy, STORED_BUTTON_TTL_MS),
      );
      return parsed.success ? { kind: 'action', ...parsed.data } : { kind: 'unknown' };
    }
    case 'fg':
      return { kind: 'form-group', session: a, chunk: Number(rest[0] ?? 0) };
    case 'fs':
      return { kind: 'form-submit', session: a };
    case 'fc':
      return { kind: 'form-cancel', session: a };
    case 'fm':
      return { kind: 'form-modal', session: a, chunk: Number(rest[0] ?? 0), submit: rest[1] === '1' };
    case 'ap':
      return { kind: 'ask-photos' };
    default:
      return { kind: 'unknown' };
  }
}
