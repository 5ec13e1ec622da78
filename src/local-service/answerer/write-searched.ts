import type { Evaluation } from './evaluate';
import { describe } from './format';
import { hasCriteria } from './intent';
import { filterTexts, gpOf, type Writing, what } from './write-common';

/**
 * The answer's last line: the conditions it searched, so a wrong reading shows at once, and what in
 * the question it could not use ("I searched homes in Denver under $700,000; I couldn't tell what
 * 'walkable' should mean, so I didn't filter on it."). Empty when there is nothing to say.
 */
export function writeSearched(ev: Evaluation, w: Writing): string {
  const gp = gpOf(w);
  const q = ev.query;
  const parts: string[] = [];
  if (!ev.problem && q.op.kind !== 'none') {
    // Homes looked at, not searched for: named ones, "the second one", "it", two of the last list compared.
    const lookedAt =
      q.set.kind === 'named' ||
      (q.set.kind === 'previous' &&
        (q.op.kind === 'difference' || q.op.kind === 'details' || q.op.kind === 'facts' || q.op.kind === 'compare'));
    if (lookedAt) {
      const names = ev.found.map((l) => l.data.Address || l.data.MLSNumber);
      if (names.length > 0) parts.push(gp.lookedUp(names));
    } else if (q.set.kind === 'previous') {
      parts.push(gp.searched(what(ev, w, Math.max(2, ev.base.length))));
    } else if (q.op.kind === 'share') {
      parts.push(
        gp.searched(
          `${what(ev, w, 2)}, counting ${[describe(q.op.part.criteria, w.p, 2, w.currency), ...filterTexts(q.op.part.filters, ev, w)].join(' ')}`,
        ),
      );
    } else if (hasCriteria(q.criteria) || q.filters.length > 0 || q.op.kind !== 'list') {
      // "anything cheaper?" says what it moved past; a relative condition already says it in its filter.
      const from = q.op.kind === 'beyond' && q.reference ? ` (${q.reference})` : '';
      parts.push(gp.searched(what(ev, w, 2) + from));
    }
  }
  if (q.notUnderstood && q.notUnderstood.length > 0) {
    const said = gp.notUnderstood(q.notUnderstood);
    parts.push(parts.length === 0 ? said.charAt(0).toUpperCase() + said.slice(1) : said);
  }
  return parts.length === 0 ? '' : `${parts.join('; ')}.`;
}
