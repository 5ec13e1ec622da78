/**
 * Key rotation as an operation (`npm run rotate-key`, `node dist/main.js rotate-key`): every sealed
 * record in the store (a value with a `sealed` field: Slack installations, tenants' connections) is
 * opened and, when STATE_ENCRYPTION_KEY did not seal it, sealed again with it, by compare-and-set on
 * the record as read and with its version raised (state/versioned.ts): a record another instance
 * changed or removed meanwhile is read again, never overwritten. Nothing else in the record changes.
 *
 * It counts what it re-sealed (under STATE_ENCRYPTION_KEY_PREVIOUS before), skipped (already under
 * STATE_ENCRYPTION_KEY) and could not read (neither key opens it: named one by one). When every record
 * opens with STATE_ENCRYPTION_KEY alone, STATE_ENCRYPTION_KEY_PREVIOUS can be removed.
 */
import type { SecretBox } from './secret-box';
import type { Json, StateStore } from './store';
import { updateVersioned } from './versioned';

export interface RotationReport {
  resealed: number;
  skipped: number;
  /** The store keys of the records no key opens. */
  unreadable: string[];
}

type Outcome = 'resealed' | 'skipped' | 'unreadable' | 'gone';

const sealedOf = (raw: Json | undefined): string | undefined =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) && typeof raw.sealed === 'string'
    ? raw.sealed
    : undefined;

async function rotateOne(store: StateStore, box: SecretBox, key: string): Promise<Outcome> {
  let outcome: Outcome = 'gone';
  await updateVersioned(store, key, (raw) => {
    const sealed = sealedOf(raw);
    if (sealed === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      outcome = 'gone';
      return undefined;
    }
    let opened: { plain: string; stale: boolean };
    try {
      opened = box.open(sealed);
    } catch {
      outcome = 'unreadable';
      return undefined;
    }
    outcome = opened.stale ? 'resealed' : 'skipped';
    return opened.stale ? { ...raw, sealed: box.seal(opened.plain) } : undefined;
  });
  return outcome;
}

/** Re-seals every sealed record of `store` with the box's current key. */
export async function rotateKeys(store: StateStore, box: SecretBox): Promise<RotationReport> {
  const report: RotationReport = { resealed: 0, skipped: 0, unreadable: [] };
  for (const key of (await store.keys('')).sort()) {
    if (sealedOf(await store.get(key)) === undefined) continue;
    const outcome = await rotateOne(store, box, key);
    if (outcome === 'resealed') report.resealed++;
    else if (outcome === 'skipped') report.skipped++;
    else if (outcome === 'unreadable') report.unreadable.push(key);
  }
  return report;
}

/** What the command prints: the unreadable records by name, the counts, and whether the previous key can go. */
export function rotationLines(r: RotationReport): string[] {
  const lines = r.unreadable.map((key) => `rotate-key: cannot read ${key} with either key; skipped`);
  lines.push(`rotate-key: re-sealed ${r.resealed}, skipped ${r.skipped}, unreadable ${r.unreadable.length}`);
  lines.push(
    r.unreadable.length === 0
      ? 'STATE_ENCRYPTION_KEY_PREVIOUS can be removed now: every sealed record is sealed with STATE_ENCRYPTION_KEY.'
      : `Keep STATE_ENCRYPTION_KEY_PREVIOUS for now: ${r.unreadable.length} record(s) could not be read (named above); set it to the key that sealed them and run rotate-key again, or have those workspaces install or connect again.`,
  );
  return lines;
}
