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

function cutWith(text: string, start: number, limit: number, fences: Fence[], floor = start): number {
  if (text.length - start <= limit) return text.length;
  const end = start + limit;
  // A floor the window does not reach cannot be honoured: the limit wins.
  const all =
    floor > start && floor <= end
      ? candidates(text, start, end).filter((c) => c.at >= floor)
      : candidates(text, start, end);
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
export function nextCut(text: string, start: number, limit: number, floor?: number): number {
  assertLimit(limit);
  return cutWith(text, start, limit, findFences(text), floor);
}

/**
 * The pieces of text.slice(start), the first ending no earlier than `firstFloor` (a cut committed
 * while streaming). Fences are judged on the whole text, as `nextCut` and `streamingCut` do, so the
 * pieces agree with what was decided while the text streamed.
 */
export function splitFrom(text: string, start: number, limit: number, firstFloor?: number): string[] {
  assertLimit(limit);
  const fences = findFences(text);
  const pieces: string[] = [];
  let pos = start;
  do {
    const cut = cutWith(text, pos, limit, fences, pos === start ? firstFloor : undefined);
    pieces.push(text.slice(pos, cut));
    pos = cut;
  } while (pos < text.length);
  return pieces;
}

/** Where the piece that starts at `start` stands while more text may still arrive. */
export interface StreamingCut {
  /** Set once no text that may follow can move the piece's end: the piece is text.slice(start, cut). */
  cut?: number;
  /** The piece's end cannot come before this, whatever follows: text.slice(start, safe) may be shown. */
  safe: number;
  /** The latest natural cut at or before `safe` that no continuation can remove (start when none). */
  safeBoundary: number;
  /** The latest settled natural cut outside fences (a floor that may be committed), when past `floor`. */
  settledCut?: number;
}

const COULD_BE_FENCE = /^ {0,3}(`*|~*)$/;

/**
 * Up to where the natural cuts of a text still streaming in are settled: no continuation can add,
 * remove or move a cut before these points, nor change its kind or whether it is inside a fence.
 * Only the trailing run of whitespace is open (more may follow: a line break becomes a paragraph),
 * and a last line that is, or may still become, a fence line (it changes what follows it).
 */
function openParts(text: string): { trailing: number; fenceLine: number } {
  let trailing = text.length;
  while (trailing > 0 && isSpace(text[trailing - 1])) trailing--;
  const lineStart = text.lastIndexOf('\n') + 1;
  const line = text.slice(lineStart).replace(/\r$/, '');
  const fenceLine = COULD_BE_FENCE.test(line) || FENCE_LINE.test(line) ? lineStart : Infinity;
  return { trailing, fenceLine };
}

/**
 * For the piece starting at `start` of a text still streaming in: its end if already decided, and
 * else the least end any continuation can give it (cutWith only picks a settled cut or one after the
 * settled point), so what is shown up to there is always a prefix of the piece's final text.
 * `floor` is a committed cut: the piece ends no earlier (see nextCut).
 */
export function streamingCut(text: string, start: number, limit: number, floor = start): StreamingCut {
  assertLimit(limit);
  const end = start + limit;
  const fences = findFences(text);
  const open = openParts(text);
  if (text.length > end && open.fenceLine >= end) {
    // The window is full and every cut in it is settled (whitespace running past the window's end
    // counts only up to it).
    const cut = cutWith(text, start, limit, fences, floor);
    return { cut, safe: cut, safeBoundary: cut, settledCut: undefined };
  }
  const settled = Math.max(start, Math.min(open.trailing, open.fenceLine, end));
  const known = candidates(text, start, settled).filter((c) => c.at <= settled && c.at >= floor);
  const outside = known.filter((c) => !insideFence(fences, c.at));
  let lowest: number | undefined;
  for (const kind of [Kind.Paragraph, Kind.Line, Kind.Sentence, Kind.Word, Kind.Cjk]) {
    const minAt = start + limit * MIN_FILL[kind];
    lowest = latest(outside, (c) => c.kind === kind && c.at >= minAt);
    if (lowest !== undefined) break;
  }
  // Text ending in whitespace outside a fence will have a cut after that whitespace starts, so the
  // fallback to the latest cut outside a fence cannot land before it.
  const pendingOutside =
    open.trailing > Math.max(start, floor - 1) &&
    open.trailing < Math.min(text.length, end) &&
    !insideFence(fences, open.trailing + 1) &&
    // A fence reaching the end may be unclosed: what follows would be inside it.
    !fences.some((f) => f.end >= text.length);
  // No settled cut qualifies yet: a later one may, or the fallbacks of cutWith pick a settled one.
  if (lowest === undefined && pendingOutside) lowest = settled;
  lowest ??=
    latest(outside, () => true) ??
    latest(known, (c) => c.kind <= Kind.Line) ??
    latest(known, (c) => c.kind <= Kind.Word) ??
    latest(known, () => true);
  const safe = lowest === undefined ? settled : Math.min(lowest, settled);
  const settledCut = latest(outside, () => true);
  return {
    safe,
    safeBoundary: latest(known, (c) => c.at <= safe) ?? start,
    settledCut: settledCut !== undefined && settledCut > Math.max(floor, start) ? settledCut : undefined,
  };
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
