import type { StoredListing } from '../listings/listings-repo';
import type { Criteria } from './intent';
import type { SortKind } from './phrases';

/** A fact of a listing held as a number, to filter, rank and aggregate on. */
export type NumericFact = 'price' | 'ppsf' | 'area' | 'lot' | 'year' | 'dom' | 'parking' | 'hoa';

/**
 * A yes/no fact a question may ask about: pets, a heating kind, a word of the description or an
 * extra field ("pool", "garden"). `words` finds it in a listing's text; `field` names the extra field
 * that holds it (a listing with that field and another value does not have it).
 */
export interface Feature {
  /** The name the answer uses ("a pool", "pets"): also the key two filters on the same feature share. */
  label: string;
  words: RegExp;
  field?: RegExp;
}

export type FactFilter =
  | { kind: 'range'; fact: NumericFact; min?: number; max?: number }
  | { kind: 'feature'; feature: Feature };

/** A fact a question asks to be told ("does it have parking?", "what year was it built?"). */
export type Asked = { kind: 'number'; fact: NumericFact } | { kind: 'feature'; feature: Feature };

export type Stat = 'average' | 'median' | 'min' | 'max';

/** Which listings the question is about. */
export type SetRef =
  /** The listings matching the query's criteria and filters. */
  | { kind: 'search' }
  /** The listings the previous answer named, in its order; `pick` keeps only those positions (1-based). */
  | { kind: 'previous'; pick?: number[] }
  /** Listings named outright by MLS number, listing id or house address, in the question's order. */
  | { kind: 'named'; keys: NamedKey[] };

export type NamedKey = { kind: 'mls'; mls: string } | { kind: 'id'; id: number } | { kind: 'address'; street: string };

export type Operation =
  | { kind: 'list' }
  | { kind: 'details' }
  /** The long answer: every match in full. */
  | { kind: 'all' }
  | { kind: 'count' }
  | { kind: 'superlative'; sort: SortKind; top: number }
  | { kind: 'aggregate'; stat: Stat; fact: NumericFact }
  | { kind: 'compare' }
  /** Only the asked facts of each listing of the set. */
  | { kind: 'facts' }
  /** "anything cheaper / bigger / pricier?": the search moved past the previous answer's homes. */
  | { kind: 'beyond'; direction: 'cheaper' | 'pricier' | 'larger' }
  /** Not about listings: the answerer's other answers (greeting, contact ...) apply. */
  | { kind: 'none' };

/** What the parser makes of a question: which listings, narrowed how, and what to say of them. */
export interface Query {
  set: SetRef;
  /** The conditions in force: the question's own and, for a follow-up or refinement, those it keeps. */
  criteria: Criteria;
  /** The fact filters in force, like `criteria`. */
  filters: FactFilter[];
  /** The question's own conditions: what narrows a previous answer's homes ("which of those are condos?"). */
  own: { criteria: Criteria; filters: FactFilter[] };
  op: Operation;
  asks: Asked[];
  /** A place named that is none of the chatbot's cities. */
  unknownPlace?: string;
}

/** What the conversation's previous answers leave for a follow-up (rebuilt from the session's history). */
export interface Previous {
  /** The last query about listings: its criteria and filters carry into refinements. */
  query?: Query;
  /** The listings the last answer naming any named, in its order: what "it", "those" mean. */
  shown: StoredListing[];
  /**
   * The last list: the homes of the last search answered, or of the last answer naming several.
   * "the second one" counts in it, so a look at the first one ("is it pet friendly?") keeps the list.
   */
  list: StoredListing[];
}
