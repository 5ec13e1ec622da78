import type { MessageRecord } from '../chat/chat-repo';
import type { StoredListing } from '../listings/listings-repo';
import { evaluate } from './evaluate';
import { type ParseContext, parseQuery } from './parse-query';
import type { FactFilter, Previous } from './query-model';

/** MLS numbers as every answer prints them ("MLS DEN240007"), in order, once each. */
export function namedMls(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(/\bMLS ([A-Z0-9][A-Z0-9-]*)/g)) seen.add(m[1]);
  return [...seen];
}

/**
 * The conversation's previous result, read back from the session's history (kept by the chat repo, so
 * it lasts as the session does): each question is parsed again in turn against the result before it,
 * so the last query about listings carries its criteria and filters (a refinement keeps the ones it
 * does not change); the homes are those the last answer naming any named, in its order, or the
 * homes a statistic covered ("which of them ..." after an average); the list "the second one"
 * counts in is the last search's or the last answer naming several. A reply naming none ("there is
 * no number 9") leaves both as they were.
 */
export function previousResult(
  history: readonly MessageRecord[],
  all: readonly StoredListing[],
  ctx: Omit<ParseContext, 'previous'>,
): Previous {
  const byMls = new Map(all.map((l) => [l.data.MLSNumber, l]));
  let previous: Previous = { shown: [], list: [] };
  let covered: StoredListing[] | undefined;
  let searched = false;
  for (const m of history) {
    if (m.role === 'user') {
      const query = parseQuery(m.content, { ...ctx, previous });
      // Evaluated again only where the answer's homes or its unknown facts are needed.
      const needed = query.op.kind === 'aggregate' || query.filters.some((f) => f.kind === 'feature');
      const ev = needed ? evaluate(query, all, previous) : undefined;
      covered = query.op.kind === 'aggregate' ? ev?.found : undefined;
      // A feature the listings never state was said once; it does not follow into refinements.
      const known = (f: FactFilter) => !(f.kind === 'feature' && ev?.unknown.includes(f.feature));
      if (query.op.kind !== 'none')
        previous = { ...previous, query: { ...query, filters: query.filters.filter(known) } };
      searched = query.set.kind === 'search';
      continue;
    }
    const shown =
      covered ??
      namedMls(m.content)
        .map((mls) => byMls.get(mls))
        .filter((l): l is StoredListing => l !== undefined);
    if (shown.length > 0) previous = { ...previous, shown, list: searched || shown.length > 1 ? shown : previous.list };
  }
  return previous;
}
