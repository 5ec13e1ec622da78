/**
 * Patterns on untrusted text, run in bounded windows so their time is linear in the text's length
 * whatever the pattern's worst case: the text is cut into strides of STRIDE characters, and each
 * stride is searched with REACH characters of context on both sides (a window of at most
 * STRIDE + 2 x REACH). A match is kept by the window whose stride it starts in, so one no longer than
 * REACH is found whole and once. Every pattern handed here also has bounded repeats, so a window
 * costs a bounded amount of work; the meter counts the characters handed to the pattern.
 */
import type { StepMeter } from './steps';

const STRIDE = 512;
/** The longest match a windowed pattern may have (and the context it sees before one). */
export const REACH = 256;

export interface Found {
  /** Where the match starts in the whole text. */
  index: number;
  /** The match, then its groups ('' for a group that took no part). */
  groups: string[];
}

/** Every match of the global pattern `re` in `text`, in order. */
export function findAll(text: string, re: RegExp, meter?: StepMeter): Found[] {
  if (!re.global) throw new Error(`findAll needs a global pattern: ${re.source.slice(0, 40)}`);
  const out: Found[] = [];
  for (let own = 0; own < text.length; own += STRIDE) {
    const from = Math.max(0, own - REACH);
    const window = text.slice(from, Math.min(text.length, own + STRIDE + REACH));
    meter?.add(window.length);
    for (const m of window.matchAll(re)) {
      const at = from + m.index;
      if (at < own || at >= own + STRIDE) continue;
      out.push({ index: at, groups: m.map((g) => g ?? '') });
    }
  }
  return out;
}
