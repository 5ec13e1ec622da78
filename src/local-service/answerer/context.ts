import type { MessageRecord } from '../chat/chat-repo';
import type { StoredListing } from '../listings/listings-repo';
import { type Criteria, hasCriteria, parseIntent, type Vocabulary } from './intent';

/** What the session's previous answer was about: the criteria in force and the homes it named. */
export interface PreviousTurn {
  criteria: Criteria;
  /** The listings the previous answer named, in the order it named them. */
  shown: StoredListing[];
}

/** MLS numbers as every answer prints them ("MLS DEN240007"), in order, once each. */
export function namedMls(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(/\bMLS ([A-Z0-9][A-Z0-9-]*)/g)) seen.add(m[1]);
  return [...seen];
}

/**
 * Reads the session's history (kept by the chat repo) back: the criteria carried by its questions
 * (a continuation like "and for rent?" adds to the ones before) and the homes the last answer naming
 * any named.
 */
export function previousTurn(
  history: readonly MessageRecord[],
  all: readonly StoredListing[],
  vocab: Vocabulary,
): PreviousTurn {
  let criteria: Criteria = {};
  for (const m of history) {
    if (m.role !== 'user') continue;
    const intent = parseIntent(m.content, vocab);
    if (!hasCriteria(intent.criteria)) continue;
    criteria = intent.continues || intent.followUp ? { ...criteria, ...intent.criteria } : intent.criteria;
  }
  // The last answer that named homes: a reply naming none ("there is no number 2", "nothing
  // cheaper") leaves the list before it as the one "the first one" or "anything cheaper?" means.
  const byMls = new Map(all.map((l) => [l.data.MLSNumber, l]));
  let shown: StoredListing[] = [];
  for (const m of [...history].reverse()) {
    if (m.role !== 'assistant') continue;
    shown = namedMls(m.content)
      .map((mls) => byMls.get(mls))
      .filter((l): l is StoredListing => l !== undefined);
    if (shown.length > 0) break;
  }
  return { criteria, shown };
}
