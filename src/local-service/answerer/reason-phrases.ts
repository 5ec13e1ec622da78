import { isSpanish } from './phrases';
import type { NumericFact, Stat } from './query-model';

/**
 * The fixed phrases of the answers that reason over listings (filters on facts, aggregates,
 * comparisons), one table per language, picked like the main table by `AIResponseLanguage`.
 * Amounts and areas come in already written; the listings' own words are never translated.
 */
export interface ReasonPhrases {
  /** A range filter in words ("with 2+ parking spots", "built in 2001 or later"); values already written. */
  range(fact: NumericFact, min: string | undefined, max: string | undefined, minN?: number, maxN?: number): string;
  /** A feature filter in words ("that allow pets", "with a pool"). */
  feature(label: string): string;
  /** The feature as a yes/no question's subject ("allow pets", "have a pool"). */
  unknownFeature(label: string): string;
  /** One listing's fact, already written value: "2 parking spots", "built in 1999". */
  fact(fact: NumericFact, value: string, n: number): string;
  noFact(fact: NumericFact): string;
  /** A listing has / lacks a feature: its own words say so (an extra field "Pets: ..." or a sentence). */
  featureYes(label: string, evidence: string, fromField: boolean): string;
  featureNo(label: string, evidence: string, fromField: boolean): string;
  featureUnknown(label: string): string;
  /** "The average asking price of the 4 homes for sale in Denver is $721,750." */
  aggregate(stat: Stat, fact: NumericFact, monthly: boolean, n: number, what: string, value: string): string;
  heldBy(items: string): string;
  noFigure(fact: NumericFact, what: string): string;
  compareHead(n: number): string;
  compareNeedsTwo: string;
  labels: {
    price: string;
    ppsf: string;
    rooms: string;
    area: string;
    year: string;
    parking: string;
    status: string;
  };
  /** "Lowest price: ...", the summary lines of a comparison. */
  best: { cheapest: string; ppsf: string; largest: string; newest: string };
  /** A follow-up narrowed the previous homes to none. */
  noneOfThose(n: number, conditions: string): string;
  /** "of those", to describe a previous answer's homes. */
  fromLast: string;
  spots(n: number): string;
  days(n: number): string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

const EN_FACT: Record<NumericFact, string> = {
  price: 'price',
  ppsf: 'price per square foot',
  area: 'living area',
  lot: 'lot size',
  year: 'year built',
  dom: 'number of days on the market',
  parking: 'number of parking spots',
  hoa: 'HOA fee',
  beds: 'number of bedrooms',
  baths: 'number of bathrooms',
};

const EN: ReasonPhrases = {
  range: (fact, min, max, minN, maxN) => {
    if (fact === 'year')
      return min && max
        ? min === max
          ? `built in ${min}`
          : `built between ${min} and ${max}`
        : min
          ? `built in ${min} or later`
          : `built in ${max} or earlier`;
    if (fact === 'parking')
      return maxN === 0
        ? 'with no parking'
        : min
          ? `with ${min}+ parking ${plural(minN ?? 0, 'spot', 'spots')}`
          : `with at most ${max} parking spots`;
    if (fact === 'hoa')
      return maxN === 0
        ? 'with no HOA fee'
        : min
          ? `with an HOA fee of at least ${min}/month`
          : `with an HOA fee of at most ${max}/month`;
    if (fact === 'dom')
      return min && max
        ? `on the market for ${min} to ${max} days`
        : min
          ? `on the market for ${min}+ days`
          : `on the market for at most ${max} days`;
    if (fact === 'beds' || fact === 'baths') {
      const noun = fact === 'beds' ? 'bedroom' : 'bathroom';
      if (min && max) return min === max ? `with exactly ${min} ${noun}s` : `with ${min} to ${max} ${noun}s`;
      return min ? `with ${min}+ ${noun}s` : `with at most ${max} ${plural(maxN ?? 0, noun, `${noun}s`)}`;
    }
    if (min && max) return `with a ${EN_FACT[fact]} between ${min} and ${max}`;
    if (fact === 'lot') return min ? `on a lot of at least ${min}` : `on a lot of at most ${max}`;
    if (fact === 'area') return min ? `of at least ${min}` : `of at most ${max}`;
    return min ? `with a ${EN_FACT[fact]} of at least ${min}` : `with a ${EN_FACT[fact]} of at most ${max}`;
  },
  feature: (label) => (/^(pets|dogs|cats)$/.test(label) ? `where ${label} are allowed` : `with ${label}`),
  unknownFeature: (label) =>
    /^(pets|dogs|cats)$/.test(label)
      ? `The listings don't say whether they allow ${label}.`
      : `The listings don't say whether they have ${label}.`,
  fact: (fact, value, n) =>
    ({
      price: `price ${value}`,
      ppsf: `${value} per sq ft`,
      area: `${value} of living space`,
      lot: `a lot of ${value}`,
      year: `built in ${value}`,
      dom: `${value} ${plural(n, 'day', 'days')} on the market`,
      parking: `${value} parking ${plural(n, 'spot', 'spots')}`,
      hoa: `HOA fee ${value}/month`,
      beds: `${value} ${plural(n, 'bedroom', 'bedrooms')}`,
      baths: `${value} ${plural(n, 'bathroom', 'bathrooms')}`,
    })[fact],
  noFact: (fact) =>
    fact === 'hoa' ? 'no HOA fee listed' : fact === 'lot' ? 'no lot size listed' : `no ${EN_FACT[fact]} listed`,
  featureYes: (label, evidence, fromField) => (fromField ? evidence : `Mentions ${label}: "${evidence}"`),
  featureNo: (label, evidence, fromField) => (fromField ? evidence : `No ${label}: "${evidence}"`),
  featureUnknown: (label) =>
    /^(pets|dogs|cats)$/.test(label) ? `doesn't say whether it allows ${label}` : `doesn't say whether it has ${label}`,
  aggregate: (stat, fact, monthly, n, what, value) => {
    const extremes =
      fact === 'area' || fact === 'lot'
        ? ['smallest', 'largest']
        : fact === 'year'
          ? ['earliest', 'latest']
          : ['lowest', 'highest'];
    const s = { average: 'average', median: 'median', min: extremes[0], max: extremes[1], sum: 'total' }[stat];
    const f = fact === 'price' ? (monthly ? 'monthly rent' : 'asking price') : EN_FACT[fact];
    return `The ${s} ${f} of the ${n === 1 ? '' : `${n} `}${what} is ${value}.`;
  },
  heldBy: (items) => `That is ${items}.`,
  noFigure: (fact, what) => `None of the ${what} lists a ${EN_FACT[fact]}.`,
  compareHead: (n) => `Here are the ${n} homes side by side:`,
  compareNeedsTwo:
    'To compare, name two or more homes (addresses, MLS numbers, or "the first two" of my last answer). I found only this one:',
  labels: {
    price: 'Price',
    ppsf: 'Price per sq ft',
    rooms: 'Beds / baths',
    area: 'Area',
    year: 'Year built',
    parking: 'Parking',
    status: 'Status',
  },
  best: {
    cheapest: 'Lowest price',
    ppsf: 'Lowest price per sq ft',
    largest: 'Largest',
    newest: 'Newest',
  },
  noneOfThose: (n, conditions) =>
    `None of the ${n} ${plural(n, 'home', 'homes')} from my last answer ${conditions ? `is ${conditions}` : 'matches'}.`,
  fromLast: 'from my last answer',
  spots: (n) => `${n} ${plural(n, 'spot', 'spots')}`,
  days: (n) => `${n} ${plural(n, 'day', 'days')}`,
};

const ES_FACT: Record<NumericFact, string> = {
  price: 'precio',
  ppsf: 'precio por pie cuadrado',
  area: 'superficie',
  lot: 'tamaño de parcela',
  year: 'año de construcción',
  dom: 'número de días en el mercado',
  parking: 'número de plazas de aparcamiento',
  hoa: 'gastos de comunidad',
  beds: 'número de habitaciones',
  baths: 'número de baños',
};

const ES_PETS: Record<string, string> = { pets: 'mascotas', dogs: 'perros', cats: 'gatos' };
/** The features a question can name (parse-facts.ts), in Spanish; an extra field's own name is kept as written. */
const ES_FEATURES: Record<string, string> = {
  'a heat pump': 'bomba de calor',
  'forced-air heating': 'calefacción por aire forzado',
  heating: 'calefacción',
  'a pool': 'piscina',
  'a yard': 'patio',
  'a garden': 'jardín',
  'water views': 'vistas al agua',
  'mountain views': 'vistas a la montaña',
  'city views': 'vistas a la ciudad',
  views: 'vistas',
  'a balcony': 'balcón',
  'a patio': 'patio',
  'a terrace': 'terraza',
  'a fireplace': 'chimenea',
  'a garage': 'garaje',
  'a gym': 'gimnasio',
  'an elevator': 'ascensor',
  'a doorman': 'conserje',
  laundry: 'lavandería',
  'air conditioning': 'aire acondicionado',
  'hardwood floors': 'suelos de madera',
  'a walk-in closet': 'vestidor',
  'an island kitchen': 'cocina con isla',
  'a courtyard': 'patio interior',
  'a basement': 'sótano',
  'a deck': 'terraza de madera',
  'a rooftop': 'azotea',
  'high ceilings': 'techos altos',
  'an open-plan kitchen': 'cocina abierta',
  'a renovation': 'reforma',
};
const es = (label: string): string => ES_FEATURES[label] ?? label;

const ES: ReasonPhrases = {
  range: (fact, min, max, minN, maxN) => {
    if (fact === 'year')
      return min && max
        ? min === max
          ? `construidas en ${min}`
          : `construidas entre ${min} y ${max}`
        : min
          ? `construidas en ${min} o después`
          : `construidas en ${max} o antes`;
    if (fact === 'parking')
      return maxN === 0
        ? 'sin aparcamiento'
        : min
          ? `con ${min}+ ${plural(minN ?? 0, 'plaza', 'plazas')} de aparcamiento`
          : `con ${max} plazas de aparcamiento como máximo`;
    if (fact === 'hoa')
      return maxN === 0
        ? 'sin gastos de comunidad'
        : min
          ? `con gastos de comunidad desde ${min}/mes`
          : `con gastos de comunidad de hasta ${max}/mes`;
    if (fact === 'dom') return min ? `con ${min}+ días en el mercado` : `con ${max} días en el mercado como máximo`;
    if (fact === 'beds' || fact === 'baths') {
      const noun = fact === 'beds' ? 'habitaciones' : 'baños';
      if (min && max) return min === max ? `con exactamente ${min} ${noun}` : `con ${min} a ${max} ${noun}`;
      return min ? `con ${min}+ ${noun}` : `con ${max} ${noun} como máximo`;
    }
    if (min && max) return `con ${ES_FACT[fact]} entre ${min} y ${max}`;
    if (fact === 'lot') return min ? `con parcela de al menos ${min}` : `con parcela de hasta ${max}`;
    if (fact === 'area') return min ? `de al menos ${min}` : `de hasta ${max}`;
    return min ? `con ${ES_FACT[fact]} desde ${min}` : `con ${ES_FACT[fact]} de hasta ${max}`;
  },
  feature: (label) => (ES_PETS[label] ? `que admiten ${ES_PETS[label]}` : `con ${es(label)}`),
  unknownFeature: (label) =>
    ES_PETS[label]
      ? `Los anuncios no dicen si admiten ${ES_PETS[label]}.`
      : `Los anuncios no dicen si tienen ${es(label)}.`,
  fact: (fact, value, n) =>
    ({
      price: `precio ${value}`,
      ppsf: `${value} por pie²`,
      area: `${value} de superficie`,
      lot: `parcela de ${value}`,
      year: `construida en ${value}`,
      dom: `${value} ${plural(n, 'día', 'días')} en el mercado`,
      parking: `${value} ${plural(n, 'plaza', 'plazas')} de aparcamiento`,
      hoa: `gastos de comunidad ${value}/mes`,
      beds: `${value} ${plural(n, 'habitación', 'habitaciones')}`,
      baths: `${value} ${plural(n, 'baño', 'baños')}`,
    })[fact],
  noFact: (fact) => `sin ${ES_FACT[fact]} indicado`,
  featureYes: (label, evidence, fromField) => (fromField ? evidence : `Menciona ${es(label)}: "${evidence}"`),
  featureNo: (label, evidence, fromField) => (fromField ? evidence : `Sin ${es(label)}: "${evidence}"`),
  featureUnknown: (label) => (ES_PETS[label] ? `no dice si admite ${ES_PETS[label]}` : `no dice si tiene ${es(label)}`),
  aggregate: (stat, fact, monthly, n, what, value) => {
    const s = { average: 'medio', median: 'mediano', min: 'mínimo', max: 'máximo', sum: 'total' }[stat];
    const f = fact === 'price' ? (monthly ? 'alquiler mensual' : 'precio') : ES_FACT[fact];
    return `El ${f} ${s} de ${n === 1 ? 'la' : `las ${n}`} ${what} es ${value}.`;
  },
  heldBy: (items) => `Corresponde a ${items}.`,
  noFigure: (fact, what) => `Ninguna de las ${what} indica ${ES_FACT[fact]}.`,
  compareHead: (n) => `Estas son las ${n} viviendas, una junto a otra:`,
  compareNeedsTwo:
    'Para comparar, indique dos o más viviendas (direcciones, números MLS, o "las dos primeras" de mi última respuesta). Solo encontré esta:',
  labels: {
    price: 'Precio',
    ppsf: 'Precio por pie²',
    rooms: 'Habitaciones / baños',
    area: 'Superficie',
    year: 'Año de construcción',
    parking: 'Aparcamiento',
    status: 'Estado',
  },
  best: {
    cheapest: 'Precio más bajo',
    ppsf: 'Precio por pie² más bajo',
    largest: 'La más grande',
    newest: 'La más nueva',
  },
  noneOfThose: (n, conditions) =>
    `Ninguna de las ${n} ${plural(n, 'vivienda', 'viviendas')} de mi última respuesta ${conditions ? `está ${conditions}` : 'coincide'}.`,
  fromLast: 'de mi última respuesta',
  spots: (n) => `${n} ${plural(n, 'plaza', 'plazas')}`,
  days: (n) => `${n} ${plural(n, 'día', 'días')}`,
};

/** The table for a chatbot's AIResponseLanguage, as `phrasesFor` picks the main one. */
export function reasonPhrasesFor(language: string): ReasonPhrases {
  return isSpanish(language) ? ES : EN;
}
