import { FACTS, NEGATIONS, TYPES, UNITS } from './grammar';
import { INTENT_PATTERNS } from './intent';
import { FACT_PATTERNS, FEATURES } from './parse-facts';
import type { Feature } from './query-model';

/**
 * Which words of a question nothing read. The readers mark what they used (the grammar's spans, the
 * patterns of the intent, fact and query readers, the chatbot's own names); the words left that are
 * not in the lexicon of words that carry no condition are named in the answer as not understood, so a
 * condition is never dropped silently. A word the listings' own texts use after "with"/"without" is
 * a condition on those texts instead (a word of the description).
 */

/** Words that carry no condition: function words, asking, politeness, the names of what is asked for. */
const LEXICON = new Set(
  `a an the i me my we us our you your is are was were be been am do does did have has had having can could
  would should will shall may might must what what's whats which who whom whose where when why how show list
  find give get tell see look looking search want need like love please thanks thank of in on at to for from
  with by about and or but any some all every each there here that this it its it's they them those these one
  ones homes home house houses listing listings property properties place places option options unit units
  real estate available currently right now today just also only else other more most less least much many
  something anything everything else let lets let's know check up out into over than then so if too very
  really okay ok hi hello hey yes no not sure maybe again instead still already yet well first second third
  fourth fifth last next number which's kind sort type types im i'm i'd id interested buy buying sale rent
  rental rentals renting lease sell selling own purchase purchasing for_sale for_rent market on the per each
  price prices priced cost costs pricing cheap cheaper cheapest expensive affordable priciest pricier apartment
  apartments condo condos townhouse townhouses townhome townhomes detail details info information describe
  compare comparison versus vs side both either neither between difference gap spread ratio times percent
  percentage share fraction proportion portion total combined sum altogether together how's whats there's
  is there are there got go going would'd that's mean average avg median typical mean minimum maximum min max
  bed beds bedroom bedrooms bath baths bathroom bathrooms br bd ba sq ft square feet foot footage size area
  year years built old new newer older newest oldest day days week weeks month months monthly dollars dollar
  bucks usd k m per than as same similar like nearby near close around within mile miles km blocks block
  neighborhood neighbourhood city town zip code street avenue road located location locations somewhere
  anywhere area areas range figure figures number numbers count counted many few much overall among out
  sold active coming soon upcoming pending yet listed recently just latest recent new available now
  contact email phone call reach agent realtor person human privacy policy long answer
  who's whom viewing tour tours visit schedule options option family families people person couple
  de la el los las en con que por para una un unos unas y o hay tienes tiene tienen tengo me mi muéstrame
  muestrame busco quiero cuál cuáles cual cuales cuánto cuántos cuánta cuántas cuanto cuantos qué que es son
  del al se le lo su sus más menos viviendas vivienda casa casas piso pisos apartamento apartamentos precio
  precios alquiler venta comprar alquilar habitaciones baños barata baratas barato caro cara caras hola gracias
  está están esta estas ese esa esas esos estos todo todas todos cerca mismo misma como entre`
    .split(/\s+/)
    .filter((w) => w !== ''),
);

const PATTERNS: readonly RegExp[] = [
  ...INTENT_PATTERNS,
  ...FACT_PATTERNS,
  ...FEATURES.map((f) => f.ask),
  new RegExp(FACTS.flatMap((f) => f.names).join('|'), 'i'),
  new RegExp(UNITS.map((u) => u.source).join('|'), 'i'),
  new RegExp(`(?:${TYPES.map(([re]) => re).join('|')})`, 'i'),
  new RegExp(`\\b(?:${NEGATIONS})`, 'i'),
  /\b(tell me more|more (details|info|information)|that one|this one|describe it|how much is it|where is it)\b/i,
  /\b(pre-?on-?market|coming soon|not yet (listed|on the market)|available now)\b/i,
];

export interface Coverage {
  /** Phrases nothing read, in the question's order. */
  unknown: string[];
  /** Words of the listings' own texts asked for ("with quartz counters"): conditions on those texts. */
  textFilters: { feature: Feature; not: boolean; span: [number, number] }[];
}

interface Token {
  w: string;
  at: number;
  end: number;
}

/**
 * The question's words against what was read. `read` holds the ranges already used; `names` the
 * chatbot's cities, neighborhoods, streets, fields; `textWords` every word of the listings' texts.
 */
export function coverage(
  text: string,
  read: readonly [number, number][],
  extra: readonly RegExp[],
  names: readonly string[],
  textWords: ReadonlySet<string>,
): Coverage {
  const covered: [number, number][] = [...read];
  const mark = (re: RegExp) => {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(g)) if (m[0].length > 0) covered.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  };
  for (const re of [...PATTERNS, ...extra]) mark(re);
  for (const n of names)
    if (n.trim() !== '') mark(new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i'));
  const tokens: Token[] = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’\-.]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu)].map((m) => ({
    w: m[0],
    at: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
  const understood = (t: Token) =>
    covered.some(([a, b]) => t.at >= a && t.end <= b) ||
    LEXICON.has(t.w.toLowerCase().replace(/[’]/g, "'")) ||
    /^[\d.,]+$/.test(t.w);
  const runs: Token[][] = [];
  let run: Token[] = [];
  for (const t of tokens) {
    if (understood(t)) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push(t);
  }
  if (run.length > 0) runs.push(run);
  const out: Coverage = { unknown: [], textFilters: [] };
  for (const r of runs) {
    const at = r[0].at;
    const end = r[r.length - 1].end;
    const phrase = text.slice(at, end);
    const before = text.slice(Math.max(0, at - 24), at).toLowerCase();
    const cue =
      /\b(with|has|have|having|featuring|includes?|including|without|no|lacking)\s+(?:an?\s+|the\s+|some\s+)?$/.exec(
        before,
      );
    const known = r.every((t) => textWords.has(t.w.toLowerCase()));
    if (cue && known) {
      const not = /^(without|no|lacking)$/.test(cue[1]);
      const words = new RegExp(`\\b${phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+')}\\b`, 'i');
      out.textFilters.push({ feature: { label: phrase.toLowerCase(), words }, not, span: [at, end] });
      continue;
    }
    out.unknown.push(phrase);
  }
  return out;
}

/** Every word of the listings' descriptions and extra fields, lower-cased. */
export function textWordsOf(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu)) out.add(m[0]);
  return out;
}
