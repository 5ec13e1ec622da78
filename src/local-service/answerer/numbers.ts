import { MULTIPLIER_WORDS, NUMBER_WORDS } from './grammar';

/**
 * Numbers spelled out in words, rewritten as digits so every later reading sees one spelling:
 * "three bedrooms" -> "3 bedrooms", "twenty-five hundred sq ft" -> "2500 sq ft", "one point two million"
 * -> "1200000", "two and a half baths" -> "2.5 baths", "half a million" -> "500000". "one" and "a" alone
 * stay words ("that one", "a pool") unless a fact or unit follows.
 */
const SMALL = Object.keys(NUMBER_WORDS).filter((w) => !['a', 'an', 'single', 'couple', 'pair'].includes(w));
const RUN_WORDS = [...SMALL, ...Object.keys(MULTIPLIER_WORDS), 'point', 'and', 'a', 'an', 'half', 'quarter'];
const RUN = new RegExp(String.raw`\b(?:(?:${RUN_WORDS.join('|')})(?:[\s-]+|\b))+`, 'gi');
/** What may follow a lone "one" / "a" for it to be a count: a fact or unit word. */
const COUNTED =
  /^\s*(bed|bd|br|bath|ba\b|bedroom|bathroom|parking|car|garage|sq|square|acre|day|week|year|mile|km|million|thousand|hundred|story|storey)/i;
const DIGIT_WORDS: Record<string, string> = {
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
};

export function numbersToDigits(text: string): string {
  const pre = text
    .replace(/\ba (?:couple|pair) of\b/gi, '2')
    .replace(/\ba few\b/gi, '3')
    .replace(/\bhalf a (million|mil)\b/gi, '500000')
    .replace(/\ba quarter(?: of a)? (million|mil)\b/gi, '250000');
  return pre.replace(RUN, (run: string, offset: number, whole: string) => {
    const tokens = [...run.matchAll(/[a-z]+/gi)].map((m) => ({ w: m[0].toLowerCase(), at: m.index ?? 0 }));
    let first = 0;
    let last = tokens.length - 1;
    // Leading and trailing joiners are not part of the number ("a" of "two and a").
    while (first <= last && ['and', 'point'].includes(tokens[first].w)) first++;
    while (last >= first && ['and', 'a', 'an', 'point'].includes(tokens[last].w)) last--;
    if (first > last) return run;
    const words = tokens.slice(first, last + 1).map((t) => t.w);
    const endAt = tokens[last].at + tokens[last].w.length;
    const after = whole.slice(offset + endAt);
    const lone = words.length === 1 && ['one', 'a', 'an', 'half', 'quarter'].includes(words[0]);
    if (lone && !(words[0] === 'one' && COUNTED.test(after))) return run;
    // "900 thousand": the digits already said the number, the word is its unit.
    if (words.every((w) => MULTIPLIER_WORDS[w] !== undefined)) return run;
    const value = numberValue(words);
    if (value === undefined) return run;
    return `${run.slice(0, tokens[first].at)}${String(value)}${run.slice(endAt)}`;
  });
}

function numberValue(words: string[]): number | undefined {
  let total = 0;
  let current = 0;
  let any = false;
  let decimals: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const next = words[i + 1];
    if (decimals !== undefined) {
      const d = DIGIT_WORDS[w];
      if (d !== undefined) {
        decimals += d;
        continue;
      }
      current += Number(`0.${decimals || '0'}`);
      decimals = undefined;
    }
    if (w === 'point') {
      decimals = '';
      continue;
    }
    if (w === 'and') continue;
    if (w === 'a' || w === 'an') {
      if (next && (MULTIPLIER_WORDS[next] !== undefined || next === 'half' || next === 'quarter')) {
        if (MULTIPLIER_WORDS[next] !== undefined && current === 0) current = 1;
        continue;
      }
      return undefined;
    }
    if (w === 'half' || w === 'quarter') {
      current += w === 'half' ? 0.5 : 0.25;
      any = true;
      continue;
    }
    const small = NUMBER_WORDS[w];
    if (small !== undefined) {
      current += small;
      any = true;
      continue;
    }
    const mult = MULTIPLIER_WORDS[w];
    if (mult === undefined) return undefined;
    if (mult === 100) current = (current || 1) * 100;
    else {
      total += (current || 1) * mult;
      current = 0;
    }
    any = true;
  }
  if (decimals !== undefined) current += Number(`0.${decimals || '0'}`);
  return any ? Math.round((total + current) * 1000) / 1000 : undefined;
}
