import type { Evaluation } from './evaluate';
import { listingLine } from './format';
import { nearest } from './query';
import { gpOf, lines, ownConditions, type Writing, what } from './write-common';

/** How many listings a list answer shows (the long answer shows every match). */
const SHOWN = 5;
/** How many near matches a "nothing matches" answer offers. */
const NEAREST = 3;

function withSold(text: string, ev: Evaluation, w: Writing): string {
  return ev.soldLeftOut > 0 ? `${text}\n\n${w.p.soldHidden(ev.soldLeftOut)}` : text;
}

/** The homes a search or a follow-up's narrowing found: the first few, with what they were asked for. */
export function writeList(ev: Evaluation, w: Writing): string {
  if (ev.found.length === 0) return writeNone(ev, w);
  const shown = ev.found.slice(0, SHOWN);
  const desc = what(ev, w, ev.found.length);
  const head =
    ev.found.length > shown.length
      ? w.p.firstOf(ev.found.length, shown.length, desc)
      : w.p.found(ev.found.length, desc);
  return `${withSold(`${head}\n\n${lines(shown, ev, w)}`, ev, w)}\n\n${w.p.offer}`;
}

export function writeCount(ev: Evaluation, w: Writing): string {
  if (ev.found.length === 0) return writeNone(ev, w);
  const shown = ev.found.slice(0, SHOWN);
  const more = ev.found.length > SHOWN ? `\n…${ev.found.length - SHOWN} more.` : '';
  return withSold(
    `${w.p.count(ev.found.length, what(ev, w, ev.found.length))}\n\n${lines(shown, ev, w)}${more}`,
    ev,
    w,
  );
}

export function writeSuperlative(ev: Evaluation, w: Writing): string {
  if (ev.found.length === 0 || ev.query.op.kind !== 'superlative') return writeNone(ev, w);
  // Ranked by price over homes for sale and for rent: each kind apart, and said so.
  const split =
    (ev.query.op.sort === 'cheapest' || ev.query.op.sort === 'priciest') &&
    new Set(ev.found.map((l) => l.data.SaleType)).size > 1
      ? `\n\n${gpOf(w).splitRanked}`
      : '';
  return `${w.p.superlative(ev.query.op.sort, what(ev, w, 2))}\n\n${lines(ev.found, ev, w)}${split}\n\n${w.p.offer}`;
}

/** "anything cheaper?": the homes past the previous answer's, or that there are none. */
export function writeBeyond(ev: Evaluation, w: Writing): string {
  const op = ev.query.op;
  if (op.kind !== 'beyond') return writeNone(ev, w);
  if (ev.found.length === 0)
    return op.direction === 'cheaper'
      ? w.p.nothingCheaper
      : op.direction === 'larger'
        ? w.p.nothingLarger
        : w.p.nothingPricier;
  return writeList(ev, w);
}

/**
 * Nothing qualifies. Among a previous answer's homes: say none of them does. In a search the data
 * matched but a fact ruled out: show those homes with the fact, so it is seen why. Otherwise the
 * nearest homes, naming what was relaxed to find them (and any sold home left out).
 */
function writeNone(ev: Evaluation, w: Writing): string {
  const conditions = w.p.joinAnd(ownConditions(ev, w));
  if (ev.query.set.kind === 'previous') return w.rp.noneOfThose(ev.base.length, conditions);
  const desc = what(ev, w, 2);
  if (ev.base.length > 0) {
    const shown = ev.base.slice(0, SHOWN);
    const plain = what({ ...ev, query: { ...ev.query, filters: [] } }, w, ev.base.length);
    return `${w.p.none(desc)}\n\n${w.p.found(ev.base.length, plain)}\n\n${lines(shown, ev, w)}\n\n${w.p.offer}`;
  }
  const none = ev.soldLeftOut > 0 ? `${w.p.none(desc)}\n\n${w.p.soldHidden(ev.soldLeftOut)}\n\n` : `${w.p.none(desc)} `;
  const near = nearest(w.all, ev.query.criteria, w.p, NEAREST);
  if (near.found.length === 0) return none.trim();
  const list = near.found.map((l, i) => listingLine(i + 1, l, w.p)).join('\n');
  return `${none}${w.p.nearest(w.p.joinAnd(near.relaxed))}\n\n${list}\n\n${w.p.offer}`;
}
