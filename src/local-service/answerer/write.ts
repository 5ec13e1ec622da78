import type { Evaluation } from './evaluate';
import type { NamedKey } from './query-model';
import { writeAggregate } from './write-aggregate';
import { writeDifference, writeShare } from './write-arith';
import type { Writing } from './write-common';
import { writeCompare } from './write-compare';
import { writeAll, writeDetails, writeFacts } from './write-details';
import { writeBeyond, writeCount, writeList, writeSuperlative } from './write-list';

/**
 * The answer to an evaluated query: what the follow-up could not refer to, the homes named that do
 * not exist, the facts the listings do not hold, then the operation's own writer.
 */
export function write(ev: Evaluation, w: Writing, vocabCities: readonly string[]): string {
  const { p, rp } = w;
  const q = ev.query;
  if (ev.problem?.kind === 'noPrevious') return p.noPrevious;
  if (ev.problem?.kind === 'noOrdinal') return p.noOrdinal(ev.problem.index, ev.problem.shown);
  if (q.set.kind === 'search' && q.unknownPlace && !q.criteria.city && !q.criteria.area)
    return p.noPlace(q.unknownPlace, vocabCities);
  const missing = ev.missing.map((k) => p.notFoundKey(keyText(k)));
  if (q.set.kind === 'named' && ev.found.length === 0) return missing.join(' ') || p.noPrevious;
  const unknown = ev.unknown.map((f) => rp.unknownFeature(f.label));
  const body = (() => {
    switch (q.op.kind) {
      case 'aggregate':
        return writeAggregate(ev, w);
      case 'compare':
        return writeCompare(ev, w);
      case 'count':
        return writeCount(ev, w);
      case 'superlative':
        return writeSuperlative(ev, w);
      case 'beyond':
        return writeBeyond(ev, w);
      case 'difference':
        return writeDifference(ev, w);
      case 'share':
        return writeShare(ev, w);
      case 'all':
        return writeAll(ev, w);
      case 'facts':
        return ev.found.length > 0 ? writeFacts(ev, w) : writeList(ev, w);
      case 'details':
        return ev.found.length > 0 ? writeDetails(ev, w) : writeList(ev, w);
      default:
        return writeList(ev, w);
    }
  })();
  return [...missing, ...unknown, body].filter((s) => s !== '').join('\n\n');
}

function keyText(k: NamedKey): string {
  if (k.kind === 'mls') return k.mls;
  if (k.kind === 'id') return `listing ${k.id}`;
  return k.street;
}
