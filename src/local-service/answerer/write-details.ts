import type { StoredListing } from '../listings/listings-repo';
import type { Evaluation } from './evaluate';
import { linkedAddress, listingParagraph } from './format';
import { hasCriteria } from './intent';
import { notes, type Writing, what } from './write-common';

/** Each listing in full (a home named, "tell me more about it"), with any fact the question asked. */
export function writeDetails(ev: Evaluation, w: Writing): string {
  return paragraphs(ev.found, ev, w);
}

export function paragraphs(found: readonly StoredListing[], ev: Evaluation, w: Writing): string {
  const text = found
    .map((l) => {
      const n = notes(l.data, ev, w);
      return n ? `${listingParagraph(l, w.p)}\n${n}` : listingParagraph(l, w.p);
    })
    .join('\n\n');
  return `${text}\n\n${found.length === 1 ? w.p.offerOne : w.p.offer}`;
}

/** The long answer: every match in full, numbered. */
export function writeAll(ev: Evaluation, w: Writing): string {
  const desc = hasCriteria(ev.query.criteria) ? what(ev, w, ev.found.length) : '';
  const list = ev.found.map((l, i) => `${i + 1}. ${listingParagraph(l, w.p)}`);
  return `${w.p.everything(ev.found.length, desc)}\n\n${list.join('\n\n')}\n\n${w.p.arrange}`;
}

/** Only the facts asked ("does it have parking?"), one line per home, each home named. */
export function writeFacts(ev: Evaluation, w: Writing): string {
  const text = ev.found.map((l) => `${linkedAddress(l.data)} (MLS ${l.data.MLSNumber}): ${notes(l.data, ev, w)}`);
  return `${text.join('\n')}\n\n${ev.found.length === 1 ? w.p.offerOne : w.p.offer}`;
}
