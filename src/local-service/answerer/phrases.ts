import type { ListingData } from '../listings/listing-data';

/**
 * The built-in answerer's fixed phrases, one table per language. `AIResponseLanguage` picks the
 * table; a language without one falls back to English (the listings' own words are never translated).
 */
export interface Phrases {
  /** Status and sale type in words: what a badge shows. */
  status(d: ListingData): string;
  forSale: string;
  forRent: string;
  sold: string;
  comingSoon: string;
  /** "homes", "condos" ...: what a description counts. */
  homes(n: number, type?: string): string;
  inCity(city: string): string;
  onStreet(street: string): string;
  inArea(area: string): string;
  withBeds(n: number): string;
  withBaths(n: number): string;
  under(amount: string): string;
  over(amount: string): string;
  between(lo: string, hi: string): string;
  largerThan(area: string): string;
  perMonth: string;
  /** The short bedroom and bathroom units of a list line ("3 bd / 2 ba"). */
  bd(n: number): string;
  ba(n: number): string;
  /** A property type in words, lower case ("condo", "condominio"); a type the table lacks is kept as is. */
  propertyType(type: string): string;
  hoa(amount: string): string;
  deposit(amount: string): string;
  tour(kind: string): string;
  sqft: string;
  sqm: string;
  priceOnRequest: string;
  found(n: number, what: string): string;
  firstOf(n: number, shown: number, what: string): string;
  count(n: number, what: string): string;
  none(what: string): string;
  nearest(relaxed: string): string;
  relaxedPrice: string;
  relaxedBeds: string;
  relaxedBaths: string;
  relaxedType: string;
  relaxedStatus: string;
  relaxedSaleType: string;
  relaxedStreet: string;
  relaxedArea: string;
  joinAnd(items: string[]): string;
  soldHidden(n: number): string;
  noPlace(place: string, cities: readonly string[]): string;
  superlative(kind: SortKind, what: string): string;
  nothingCheaper: string;
  nothingLarger: string;
  nothingPricier: string;
  noPrevious: string;
  /** The answer to "thank you" or "bye". */
  thanks: string;
  noOrdinal(n: number, shown: number): string;
  notFoundKey(key: string): string;
  offer: string;
  offerOne: string;
  everything(n: number, what: string): string;
  arrange: string;
  media(kind: string, names: string): string;
  mediaOnly: string;
  contact(how: string): string;
  noContact: string;
  privacy(name: string, url: string): string;
  paragraph(d: ListingData, link: string, price: string, area: string): string;
}

export type SortKind = 'cheapest' | 'priciest' | 'largest' | 'smallest' | 'newest' | 'oldest' | 'recent';

const EN: Phrases = {
  status: (d) =>
    d.Status === 'Sold'
      ? 'Sold'
      : d.Status === 'PreOnMarket'
        ? 'Coming soon'
        : d.SaleType === 'for_rent'
          ? 'For rent'
          : 'For sale',
  forSale: 'for sale',
  forRent: 'for rent',
  sold: 'sold',
  comingSoon: 'coming soon',
  homes: (n, type) => (type ? `${type.toLowerCase()}${n === 1 ? '' : 's'}` : n === 1 ? 'home' : 'homes'),
  inCity: (c) => `in ${c}`,
  onStreet: (s) => `on ${s}`,
  inArea: (a) => `in ${a}`,
  withBeds: (n) => `with ${n}+ bedrooms`,
  withBaths: (n) => `with ${n}+ bathrooms`,
  under: (a) => `under ${a}`,
  over: (a) => `over ${a}`,
  between: (lo, hi) => `between ${lo} and ${hi}`,
  largerThan: (a) => `larger than ${a}`,
  perMonth: '/month',
  bd: () => 'bd',
  ba: () => 'ba',
  propertyType: (type) => type.toLowerCase(),
  hoa: (amount) => `HOA: ${amount}/month.`,
  deposit: (amount) => `Deposit: ${amount}.`,
  tour: (kind) => (kind === '3D' ? '3D tour.' : 'Open house.'),
  sqft: 'sq ft',
  sqm: 'm²',
  priceOnRequest: 'price on request',
  found: (n, what) => `I found ${n} ${what}:`,
  firstOf: (n, shown, what) => `I found ${n} ${what}. Here are the first ${shown}:`,
  count: (n, what) => `There ${n === 1 ? 'is' : 'are'} ${n} ${what} right now${n > 0 ? ':' : '.'}`,
  none: (what) => `There are no ${what} in our listings right now.`,
  nearest: (relaxed) => `The nearest matches${relaxed ? ` (${relaxed})` : ''}:`,
  relaxedPrice: 'without the price limit',
  relaxedBeds: 'with fewer bedrooms',
  relaxedBaths: 'with fewer bathrooms',
  relaxedType: 'of any property type',
  relaxedStatus: 'of any status',
  relaxedSaleType: 'for sale or for rent',
  relaxedStreet: 'on any street',
  relaxedArea: 'in any neighborhood',
  joinAnd: (items) =>
    items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`,
  soldHidden: (n) =>
    `(${n} sold ${n === 1 ? 'home is' : 'homes are'} not shown; ask for sold homes to see ${n === 1 ? 'it' : 'them'}.)`,
  noPlace: (place, cities) => `We have no listings in ${place}. Our listings are in ${EN.joinAnd([...cities])}.`,
  superlative: (kind, what) =>
    ({
      cheapest: `The least expensive of the ${what}:`,
      priciest: `The most expensive of the ${what}:`,
      largest: `The largest of the ${what}:`,
      smallest: `The smallest of the ${what}:`,
      newest: `The most recently built of the ${what}:`,
      oldest: `The oldest of the ${what}:`,
      recent: `The most recently listed of the ${what}:`,
    })[kind],
  nothingCheaper: 'Nothing cheaper matches: these were already the least expensive.',
  nothingLarger: 'Nothing larger matches: these were already the largest.',
  nothingPricier: 'Nothing more expensive matches: these were already the most expensive.',
  thanks: "You're welcome! Ask me any time about homes for sale or for rent.",
  noPrevious: "I'm not sure which home you mean. Ask me about a city, an address or an MLS number and I'll look it up.",
  noOrdinal: (n, shown) =>
    `My last answer listed ${shown} ${shown === 1 ? 'home' : 'homes'}, so there is no number ${n}.`,
  notFoundKey: (key) => `I have no listing matching ${key}.`,
  offer: 'Would you like more details on any of these, or to schedule a viewing?',
  offerOne: 'Would you like to schedule a viewing of this home?',
  everything: (n, what) =>
    `Here is every listing${what ? ` ${what}` : ''} we have right now (${n} in total), with the details of each.`,
  arrange: "Tell me which ones you would like to see in person and I'll help you ask for a viewing.",
  media: (kind, names) => `Thanks, I received your ${kind} (${names}).`,
  mediaOnly:
    "I can't look inside media files yet, but I can help with our listings: ask me about a city, a price range, bedrooms or an MLS number.",
  contact: (how) => `You can reach our agents at ${how}.`,
  noContact: 'I can put you in touch with one of our agents: ask for a person and they will take it from there.',
  privacy: (name, url) => `${name}: ${url}`,
  paragraph: (d, link, price, area) =>
    `${link} (MLS ${d.MLSNumber}) is a ${d.Bedrooms}-bedroom, ${d.Bathrooms}-bath ${EN.propertyType(d.PropertyType)} ` +
    `${d.Status === 'Sold' ? 'sold' : d.SaleType === 'for_rent' ? 'for rent' : 'for sale'} at ${price}. Status: ${EN.status(d)}. ` +
    `${area} of living space, built in ${d.YearBuilt}, ${d.ParkingSpots} parking spot${d.ParkingSpots === 1 ? '' : 's'}.`,
};

const ES_TYPES: Record<string, [string, string]> = {
  House: ['casa', 'casas'],
  Condo: ['condominio', 'condominios'],
  Apartment: ['apartamento', 'apartamentos'],
  Townhouse: ['casa adosada', 'casas adosadas'],
};

const ES: Phrases = {
  status: (d) =>
    d.Status === 'Sold'
      ? 'Vendida'
      : d.Status === 'PreOnMarket'
        ? 'Próximamente'
        : d.SaleType === 'for_rent'
          ? 'En alquiler'
          : 'En venta',
  forSale: 'en venta',
  forRent: 'en alquiler',
  sold: 'vendidas',
  comingSoon: 'próximamente',
  homes: (n, type) => {
    const [one, many] = ES_TYPES[type ?? ''] ?? ['vivienda', 'viviendas'];
    return n === 1 ? one : many;
  },
  inCity: (c) => `en ${c}`,
  onStreet: (s) => `en ${s}`,
  inArea: (a) => `en ${a}`,
  withBeds: (n) => `con ${n}+ habitaciones`,
  withBaths: (n) => `con ${n}+ baños`,
  under: (a) => `por menos de ${a}`,
  over: (a) => `por más de ${a}`,
  between: (lo, hi) => `entre ${lo} y ${hi}`,
  largerThan: (a) => `de más de ${a}`,
  perMonth: '/mes',
  bd: () => 'hab.',
  ba: (n) => (n === 1 ? 'baño' : 'baños'),
  propertyType: (type) => ES_TYPES[type]?.[0] ?? type.toLowerCase(),
  hoa: (amount) => `Gastos de comunidad: ${amount}/mes.`,
  deposit: (amount) => `Fianza: ${amount}.`,
  tour: (kind) => (kind === '3D' ? 'Visita virtual en 3D.' : 'Jornada de puertas abiertas.'),
  sqft: 'pies²',
  sqm: 'm²',
  priceOnRequest: 'precio a consultar',
  found: (n, what) => `Encontré ${n} ${what}:`,
  firstOf: (n, shown, what) => `Encontré ${n} ${what}. Estas son las primeras ${shown}:`,
  count: (n, what) => `${n === 1 ? 'Hay' : 'Hay'} ${n} ${what} ahora mismo${n > 0 ? ':' : '.'}`,
  none: (what) => `Ahora mismo no hay ${what} en nuestros anuncios.`,
  nearest: (relaxed) => `Las opciones más cercanas${relaxed ? ` (${relaxed})` : ''}:`,
  relaxedPrice: 'sin el límite de precio',
  relaxedBeds: 'con menos habitaciones',
  relaxedBaths: 'con menos baños',
  relaxedType: 'de cualquier tipo',
  relaxedStatus: 'en cualquier estado',
  relaxedSaleType: 'en venta o en alquiler',
  relaxedStreet: 'en cualquier calle',
  relaxedArea: 'en cualquier barrio',
  joinAnd: (items) =>
    items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} y ${items[items.length - 1]}`,
  soldHidden: (n) =>
    `(${n === 1 ? 'No se muestra 1 vivienda vendida' : `No se muestran ${n} viviendas vendidas`}; pregunte por las vendidas para verlas.)`,
  noPlace: (place, cities) => `No tenemos anuncios en ${place}. Nuestros anuncios están en ${ES.joinAnd([...cities])}.`,
  superlative: (kind, what) =>
    ({
      cheapest: `La más económica de las ${what}:`,
      priciest: `La más cara de las ${what}:`,
      largest: `La más grande de las ${what}:`,
      smallest: `La más pequeña de las ${what}:`,
      newest: `La de construcción más reciente de las ${what}:`,
      oldest: `La más antigua de las ${what}:`,
      recent: `La publicada más recientemente de las ${what}:`,
    })[kind],
  nothingCheaper: 'No hay nada más económico: estas ya eran las más baratas.',
  nothingLarger: 'No hay nada más grande: estas ya eran las más grandes.',
  nothingPricier: 'No hay nada más caro: estas ya eran las más caras.',
  thanks: '¡De nada! Pregúnteme cuando quiera por viviendas en venta o en alquiler.',
  noPrevious: 'No sé a qué vivienda se refiere. Pregúnteme por una ciudad, una dirección o un número MLS.',
  noOrdinal: (n, shown) =>
    `Mi última respuesta mostró ${shown} ${shown === 1 ? 'vivienda' : 'viviendas'}, así que no hay número ${n}.`,
  notFoundKey: (key) => `No tengo ningún anuncio que coincida con ${key}.`,
  offer: '¿Quiere más detalles de alguna, o pedir una visita?',
  offerOne: '¿Quiere pedir una visita de esta vivienda?',
  everything: (n, what) =>
    `Estos son todos nuestros anuncios${what ? ` ${what}` : ''} (${n} en total), con los detalles de cada uno.`,
  arrange: 'Dígame cuáles le gustaría ver en persona y le ayudo a pedir una visita.',
  media: (_kind, names) => `Gracias, recibí su archivo (${names}).`,
  mediaOnly:
    'Todavía no puedo ver archivos, pero puedo ayudarle con nuestros anuncios: pregúnteme por una ciudad, un precio, habitaciones o un número MLS.',
  contact: (how) => `Puede contactar con nuestros agentes en ${how}.`,
  noContact: 'Puedo ponerle en contacto con uno de nuestros agentes: pida hablar con una persona.',
  privacy: (name, url) => `${name}: ${url}`,
  paragraph: (d, link, price, area) =>
    `${link} (MLS ${d.MLSNumber}): ${ES.propertyType(d.PropertyType)} de ${d.Bedrooms} ${d.Bedrooms === 1 ? 'habitación' : 'habitaciones'} ` +
    `y ${d.Bathrooms} ${ES.ba(d.Bathrooms)} ` +
    `${d.Status === 'Sold' ? 'vendida' : d.SaleType === 'for_rent' ? 'en alquiler' : 'en venta'} por ${price}. Estado: ${ES.status(d)}. ` +
    `${area} de superficie, año de construcción ${d.YearBuilt}, ${d.ParkingSpots} plaza${d.ParkingSpots === 1 ? '' : 's'} de aparcamiento.`,
};

/** Whether a chatbot's AIResponseLanguage ("Spanish", "Español", "es" ...) picks the Spanish tables. */
export function isSpanish(language: string): boolean {
  return /^(es|spa|spanish|espa[nñ]ol|castellano)\b/i.test(language.trim());
}

/** The table for a chatbot's AIResponseLanguage; any language without one falls back to English. */
export function phrasesFor(language: string): Phrases {
  return isSpanish(language) ? ES : EN;
}
