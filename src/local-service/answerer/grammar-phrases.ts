import { isSpanish } from './phrases';
import type { NumericFact } from './query-model';

/**
 * The phrases of the grammar's answers (what was searched, what was not understood, relative and
 * excluded conditions, arithmetic between homes, shares), one table per language like the others.
 * Figures come in already written.
 */
export interface GrammarPhrases {
  excluded(what: 'type' | 'city' | 'area', value: string): string;
  zip(zip: string): string;
  without(label: string): string;
  distance(miles: string, from: string): string;
  around(value: string, tolerance: string): string;
  searched(what: string): string;
  lookedUp(names: string[]): string;
  notUnderstood(phrases: string[]): string;
  splitRanked: string;
  splitFigured: string;
  /** "A (x) costs $d more than B (y): 23.4% more." */
  difference(
    fact: NumericFact,
    a: string,
    av: string,
    b: string,
    bv: string,
    diff: string,
    more: boolean,
    pct: string,
  ): string;
  same(fact: NumericFact, a: string, b: string, v: string): string;
  ratio(fact: NumericFact, a: string, av: string, b: string, bv: string, times: string): string;
  notComparable(a: string, av: string, b: string, bv: string): string;
  spread(
    fact: NumericFact,
    n: number,
    what: string,
    lo: string,
    loWho: string,
    hi: string,
    hiWho: string,
    diff: string,
  ): string;
  needsTwo: string;
  share(k: number, n: number, what: string, pct: string, part: string): string;
  joinOr(items: string[]): string;
}

const EN_NOUN: Record<NumericFact, string> = {
  price: 'price',
  ppsf: 'price per sq ft',
  area: 'living area',
  lot: 'lot size',
  year: 'year built',
  dom: 'time on the market',
  parking: 'parking',
  hoa: 'HOA fee',
  beds: 'number of bedrooms',
  baths: 'number of bathrooms',
};

/** "costs $d more", "is 610 sq ft larger", "was built 59 years later": the difference said as the fact is. */
function enDelta(fact: NumericFact, diff: string, more: boolean): string {
  switch (fact) {
    case 'price':
      return `costs ${diff} ${more ? 'more' : 'less'}`;
    case 'ppsf':
      return `costs ${diff} ${more ? 'more' : 'less'} per sq ft`;
    case 'hoa':
      return `has an HOA fee ${diff}/month ${more ? 'higher' : 'lower'}`;
    case 'area':
      return `is ${diff} ${more ? 'larger' : 'smaller'}`;
    case 'lot':
      return `has a lot ${diff} ${more ? 'larger' : 'smaller'}`;
    case 'year':
      return `was built ${diff} ${more ? 'later' : 'earlier'}`;
    case 'dom':
      return `has been on the market ${diff} ${more ? 'longer' : 'less'}`;
    case 'beds':
      return `has ${diff} ${more ? 'more' : 'fewer'} bedrooms`;
    case 'baths':
      return `has ${diff} ${more ? 'more' : 'fewer'} bathrooms`;
    case 'parking':
      return `has ${diff} ${more ? 'more' : 'fewer'} parking spots`;
  }
}

const enOr = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
const quoted = (xs: string[]) => xs.map((x) => `'${x}'`);

const EN: GrammarPhrases = {
  excluded: (what, value) => (what === 'type' ? `other than ${value.toLowerCase()}s` : `outside ${value}`),
  zip: (zip) => `in ZIP ${zip}`,
  without: (label) => (/^(pets|dogs|cats)$/.test(label) ? `where ${label} are not allowed` : `without ${label}`),
  distance: (miles, from) => `${miles} miles from ${from}`,
  around: (value, tolerance) => `around ${value} (${tolerance})`,
  searched: (what) => `I searched ${what}`,
  lookedUp: (names) =>
    `I looked up ${names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`}`,
  notUnderstood: (phrases) =>
    `I couldn't tell what ${enOr(quoted(phrases))} should mean, so I didn't filter on ${phrases.length === 1 ? 'it' : 'them'}`,
  splitRanked: 'Sale prices and monthly rents are ranked separately: a rent is not comparable with a purchase price.',
  splitFigured: 'Sale prices and monthly rents are figured separately, never together.',
  difference: (fact, a, av, b, bv, diff, more, pct) =>
    `${a} (${av}) ${enDelta(fact, diff, more)} than ${b} (${bv})${pct ? `: ${pct} ${more ? 'more' : 'less'}` : ''}.`,
  same: (fact, a, b, v) => `${a} and ${b} have the same ${EN_NOUN[fact]} (${v}).`,
  ratio: (fact, a, av, b, bv, times) => `The ${EN_NOUN[fact]} of ${a} (${av}) is ${times} times that of ${b} (${bv}).`,
  notComparable: (a, av, b, bv) =>
    `I can't set these against each other: ${a} is ${av} and ${b} is ${bv}, and a monthly rent is not comparable with a purchase price.`,
  spread: (fact, n, what, lo, loWho, hi, hiWho, diff) =>
    `Across the ${n} ${what}, the ${EN_NOUN[fact]} runs from ${lo} (${loWho}) to ${hi} (${hiWho}): a difference of ${diff}.`,
  needsTwo:
    'To work out a difference I need two homes: name them (addresses or MLS numbers) or say which of my last answer ("the first and the second").',
  share: (k, n, what, pct, part) => `${k} of the ${n} ${what} (${pct}) ${k === 1 ? 'is' : 'are'} ${part}.`,
  joinOr: enOr,
};

const ES_NOUN: Record<NumericFact, string> = {
  price: 'precio',
  ppsf: 'precio por pie²',
  area: 'superficie',
  lot: 'parcela',
  year: 'año de construcción',
  dom: 'tiempo en el mercado',
  parking: 'aparcamiento',
  hoa: 'gastos de comunidad',
  beds: 'número de habitaciones',
  baths: 'número de baños',
};
const esOr = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} o ${items[items.length - 1]}`;

const ES: GrammarPhrases = {
  excluded: (what, value) => (what === 'type' ? `que no son ${value.toLowerCase()}` : `fuera de ${value}`),
  zip: (zip) => `en el código postal ${zip}`,
  without: (label) => `sin ${label}`,
  distance: (miles, from) => `a ${miles} millas de ${from}`,
  around: (value, tolerance) => `alrededor de ${value} (${tolerance})`,
  searched: (what) => `Busqué ${what}`,
  lookedUp: (names) => `Consulté ${names.join(' y ')}`,
  notUnderstood: (phrases) =>
    `no entendí qué significa ${esOr(quoted(phrases))}, así que no ${phrases.length === 1 ? 'lo' : 'los'} usé como filtro`,
  splitRanked:
    'Los precios de venta y los alquileres mensuales se ordenan por separado: un alquiler no es comparable con un precio de compra.',
  splitFigured: 'Los precios de venta y los alquileres mensuales se calculan por separado, nunca juntos.',
  difference: (fact, a, av, b, bv, diff, more, pct) =>
    `${a} (${av}) tiene un ${ES_NOUN[fact]} ${diff} ${more ? 'mayor' : 'menor'} que ${b} (${bv})${pct ? `: un ${pct} ${more ? 'más' : 'menos'}` : ''}.`,
  same: (fact, a, b, v) => `${a} y ${b} tienen el mismo ${ES_NOUN[fact]} (${v}).`,
  ratio: (fact, a, av, b, bv, times) => `El ${ES_NOUN[fact]} de ${a} (${av}) es ${times} veces el de ${b} (${bv}).`,
  notComparable: (a, av, b, bv) =>
    `No puedo compararlas: ${a} es ${av} y ${b} es ${bv}, y un alquiler mensual no es comparable con un precio de compra.`,
  spread: (fact, n, what, lo, loWho, hi, hiWho, diff) =>
    `Entre las ${n} ${what}, el ${ES_NOUN[fact]} va de ${lo} (${loWho}) a ${hi} (${hiWho}): una diferencia de ${diff}.`,
  needsTwo:
    'Para calcular una diferencia necesito dos viviendas: indíquelas (direcciones o números MLS) o diga cuáles de mi última respuesta.',
  share: (k, n, what, pct, part) => `${k} de las ${n} ${what} (${pct}) ${k === 1 ? 'es' : 'son'} ${part}.`,
  joinOr: esOr,
};

export function grammarPhrasesFor(language: string): GrammarPhrases {
  return isSpanish(language) ? ES : EN;
}
