/**
 * Cutting an answer into messages no longer than a platform allows.
 *
 * The one hard rule is exactness: the pieces concatenated equal the input, character for character.
 * Within that, a cut goes where a reader expects a break (paragraph, line, sentence, word), never
 * inside a fenced code block when another cut exists, never inside a word unless the word alone is
 * longer than the limit, and never between the halves of a UTF-16 surrogate pair. Whitespace at a
 * cut stays at the end of the earlier piece (platforms trim it there), except a line's indentation,
 * which stays with its line.
 */

/** A fenced code block: [start, end) from the opening line's start to after the closing line. */
interface Fence {
  start: number;
  end: number;
}

enum Kind {
  Paragraph = 0,
  Line = 1,
  Sentence = 2,
  Word = 3,
  /** Between ideographs/kana: scripts written without spaces. */
  Cjk = 4,
}

interface Candidate {
  at: number;
  kind: Kind;
}

/** How far into the window a cut of each kind must be before it beats a weaker kind further on. */
const MIN_FILL: Record<Kind, number> = {
  [Kind.Paragraph]: 0.5,
  [Kind.Line]: 0.6,
  [Kind.Sentence]: 0.6,
  [Kind.Word]: 0.6,
  [Kind.Cjk]: 0.6,
};

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const SENTENCE_END = /[.!?…。！？]/;
const CLOSERS = /["'”’)\]}»*_]/;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;
const CJK_SENTENCE_END = /[。！？]/;

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && /\s/.test(ch);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when a cut at `at` would separate a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  return at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at));
}

/** Fenced blocks (``` or ~~~, CommonMark-style); an unclosed fence runs to the end of the text. */
export function findFences(text: string): Array<{ start: number; end: number }> {
  const fences: Fence[] = [];
  let open: { start: number; ch: string; len: number } | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const m = FENCE_LINE.exec(text.slice(lineStart, lineEnd).replace(/\r$/, ''));
    if (m) {
      const marks = m[1] ?? '';
      const rest = m[2] ?? '';
      const ch = marks[0] ?? '`';
      if (!open) {
        // A backtick fence's info string may not contain backticks (otherwise it is inline code).
        if (!(ch === '`' && rest.includes('`'))) open = { start: lineStart, ch, len: marks.length };
      } else if (ch === open.ch && marks.length >= open.len && rest.trim() === '') {
        fences.push({ start: open.start, end: nl === -1 ? text.length : nl + 1 });
        open = undefined;
      }
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  if (open) fences.push({ start: open.start, end: text.length });
  return fences;
}

function insideFence(fences: Fence[], at: number): boolean {
  for (const f of fences) {
    if (f.start >= at) return false;
    if (at < f.end) return true;
  }
  return false;
}

/** The character before `at` that decides a sentence end, skipping closing quotes and brackets. */
function endsSentence(text: string, at: number, floor: number): boolean {
  let i = at - 1;
  while (i > floor && CLOSERS.test(text[i] ?? '')) i--;
  return SENTENCE_END.test(text[i] ?? '');
}

/** Every natural cut in (start, end]; `end` < text.length. */
function candidates(text: string, start: number, end: number): Candidate[] {
  const out: Candidate[] = [];
  let i = start;
  while (i < end) {
    const ch = text[i];
    if (isSpace(ch)) {
      const runStart = i;
      while (i < text.length && isSpace(text[i])) i++;
      // A run at the very start of the piece would make a piece of blanks only.
      if (runStart === start) continue;
      const capped = Math.min(i, end);
      let newlines = 0;
      let lastNl = -1;
      for (let j = runStart; j < capped; j++) {
        if (text[j] === '\n') {
          newlines++;
          lastNl = j;
        }
      }
      if (newlines > 0) {
        out.push({ at: lastNl + 1, kind: newlines > 1 ? Kind.Paragraph : Kind.Line });
      } else {
        out.push({ at: capped, kind: endsSentence(text, runStart, start) ? Kind.Sentence : Kind.Word });
      }
      continue;
    }
    const next = text[i + 1];
    const at = i + 1;
    if (at > start && at <= end && next !== undefined && !isSpace(next) && !splitsPair(text, at)) {
      if (CJK_SENTENCE_END.test(ch ?? '')) out.push({ at, kind: Kind.Sentence });
      else if (CJK.test(ch ?? '') || CJK.test(next)) out.push({ at, kind: Kind.Cjk });
    }
    i++;
  }
  return out.filter((c) => c.at > start && c.at <= end);
}

function latest(list: Candidate[], pred: (c: Candidate) => boolean): number | undefined {
  let best: number | undefined;
  for (const c of list) if (pred(c) && (best === undefined || c.at > best)) best = c.at;
  return best;
}

function cutWith(text: string, start: number, limit: number, fences: Fence[]): number {
  if (text.length - start <= limit) return text.length;
  const end = start + limit;
  const all = candidates(text, start, end);
  const outside = all.filter((c) => !insideFence(fences, c.at));

  for (const kind of [Kind.Paragraph, Kind.Line, Kind.Sentence, Kind.Word, Kind.Cjk]) {
    const floor = start + limit * MIN_FILL[kind];
    const at = latest(outside, (c) => c.kind === kind && c.at >= floor);
    if (at !== undefined) return at;
  }
  const anyOutside = latest(outside, () => true);
  if (anyOutside !== undefined) return anyOutside;

  // Only a fence (or one word) longer than the limit is left: cut inside it, as gently as possible.
  const line = latest(all, (c) => c.kind <= Kind.Line);
  if (line !== undefined) return line;
  const word = latest(all, (c) => c.kind <= Kind.Word);
  if (word !== undefined) return word;
  const cjk = latest(all, () => true);
  if (cjk !== undefined) return cjk;

  let hard = end;
  if (splitsPair(text, hard)) hard--;
  return hard;
}

/**
 * Where the piece that starts at `start` ends: an index in (start, start + limit], or text.length when
 * the rest fits. Fences are judged on the whole text, so a piece starting inside a fence knows it.
 */
export function nextCut(text: string, start: number, limit: number): number {
  assertLimit(limit);
  return cutWith(text, start, limit, findFences(text));
}

/** Pieces each at most `limit` long whose concatenation is exactly `text`. */
export function splitForLimit(text: string, limit: number): string[] {
  assertLimit(limit);
  if (text.length <= limit) return [text];
  const fences = findFences(text);
  const pieces: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    const cut = cutWith(text, pos, limit, fences);
    pieces.push(text.slice(pos, cut));
    pos = cut;
  }
  return pieces;
}

/**
 * Like splitForLimit, but into at least `count` pieces when the text allows (the longest piece is
 * split again at its best boundary). Used when messages already exist and cannot be deleted: each
 * keeps a share of the text rather than being blanked. Pieces that cannot be made stay ''.
 */
export function splitIntoAtLeast(text: string, limit: number, count: number): string[] {
  const pieces = splitForLimit(text, limit);
  while (pieces.length < count) {
    let longest = 0;
    for (let i = 1; i < pieces.length; i++) if ((pieces[i] ?? '').length > (pieces[longest] ?? '').length) longest = i;
    const piece = pieces[longest] ?? '';
    if (piece.length < 2) break;
    const cut = nextCut(piece, 0, Math.max(2, Math.ceil(piece.length / 2)));
    const safeCut = cut >= piece.length || cut <= 0 ? Math.ceil(piece.length / 2) : cut;
    if (splitsPair(piece, safeCut)) break;
    pieces.splice(longest, 1, piece.slice(0, safeCut), piece.slice(safeCut));
  }
  while (pieces.length < count) pieces.push('');
  return pieces;
}

function assertLimit(limit: number): void {
  // Below 2 a surrogate pair could not fit in any piece.
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError(`limit must be an integer >= 2, got ${limit}`);
}
