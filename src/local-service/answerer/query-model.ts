import type { StoredListing } from '../listings/listings-repo';
import type { Criteria } from './intent';
import type { SortKind } from './phrases';

/** A fact of a listing held as a number, to filter, rank and aggregate on. */
export type NumericFact = 'price' | 'ppsf' | 'area' | 'lot' | 'year' | 'dom' | 'parking' | 'hoa' | 'beds' | 'baths';

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
  /** `said`: how the answer states the bound when it is relative ("cheaper than 4547 S Congress Ave ($827,000)"). */
  | { kind: 'range'; fact: NumericFact; min?: number; max?: number; said?: string }
  /** `not`: the listing must not state it ("without a pool"). */
  | { kind: 'feature'; feature: Feature; not?: boolean }
  /** "not condos", "outside Denver": a value of a kind ruled out. */
  | { kind: 'exclude'; what: 'type' | 'city' | 'area'; value: string }
  | { kind: 'zip'; zip: string }
  /** Within `miles` of a point (the home the conversation is about), nearest first. */
  | { kind: 'near'; lat: number; lon: number; miles: number; said: string }
  /** The home a relative condition is measured from is not one of its own results. */
  | { kind: 'other'; mls: string; said: string };

/** A fact a question asks to be told ("does it have parking?", "what year was it built?"). */
export type Asked = { kind: 'number'; fact: NumericFact } | { kind: 'feature'; feature: Feature };

export type Stat = 'average' | 'median' | 'min' | 'max' | 'sum';

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
  /** The difference (and ratio) of a fact between two homes, or its spread over more. */
  | { kind: 'difference'; fact: NumericFact; ratio: boolean }
  /** How many of the set (and what share) also meet `part`. */
  | { kind: 'share'; part: { criteria: Criteria; filters: FactFilter[] } }
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
  /** Parts of the question nothing could read: said in the answer, never silently dropped. */
  notUnderstood?: string[];
  /** What a relative or "anything cheaper?" search is measured from, in words. */
  reference?: string;
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
