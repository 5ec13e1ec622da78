import {
  findFences,
  nextCut,
  splitForLimit,
  splitFrom,
  splitIntoAtLeast,
  streamingCut,
} from '../../../src/core/relay/split';

/** Small seeded PRNG so a failing case can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  text: string;
  fences: Array<[number, number]>;
}

const EMOJI = ['😀', '👩‍💻', '🏠', '🔑'];
const CJK_WORDS = ['房地产', '公寓出售', '东京の物件', '価格は', '三居室'];

/** Prose with paragraphs, lines, sentences, emoji, CJK and short code fences (each under maxFence). */
function generate(seed: number, length: number, opts: { maxFence: number; longWord?: number }): Generated {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  let text = '';
  const fences: Array<[number, number]> = [];
  const word = (): string => {
    if (opts.longWord && r() < 0.002) return 'x'.repeat(opts.longWord);
    const n = 1 + Math.floor(r() * 11);
    let w = '';
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(r() * 26));
    return w;
  };
  while (text.length < length) {
    const roll = r();
    if (roll < 0.04 && (text === '' || text.endsWith('\n'))) {
      const start = text.length;
      let block = '```ts\n';
      const lines = 1 + Math.floor(r() * 12);
      for (let i = 0; i < lines; i++)
        block += `${'  '.repeat(Math.floor(r() * 3))}const ${word()} = ${word()}(${word()});\n`;
      block += '```\n';
      if (block.length >= opts.maxFence) block = '```\nshort();\n```\n';
      text += block;
      fences.push([start, text.length]);
    } else if (roll < 0.1) text += '\n\n';
    else if (roll < 0.16) text += '\n';
    else if (roll < 0.25) text += `${word()}. `;
    else if (roll < 0.3) text += `${pick(EMOJI)} `;
    else if (roll < 0.35) text += `${pick(CJK_WORDS)}。`;
    else text += `${word()} `;
  }
  return { text, fences };
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const CJK = /[\u3040-\u30ff\u4e00-\u9fff。]/;

function cuts(pieces: string[]): number[] {
  const out: number[] = [];
  let at = 0;
  for (const p of pieces.slice(0, -1)) {
    at += p.length;
    out.push(at);
  }
  return out;
}

function checkExact(text: string, pieces: string[], limit: number): void {
  expect(pieces.join('')).toBe(text);
  for (const p of pieces) expect(p.length).toBeLessThanOrEqual(limit);
  for (const c of cuts(pieces)) {
    const hi = text.charCodeAt(c - 1);
    const lo = text.charCodeAt(c);
    expect(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff).toBe(false);
  }
}

describe('splitForLimit', () => {
  it('keeps short text whole', () => {
    expect(splitForLimit('hello world', 100)).toEqual(['hello world']);
    expect(splitForLimit('', 100)).toEqual(['']);
  });

  it('puts whitespace at the end of the earlier piece and never cuts a word', () => {
    expect(splitForLimit('aaa bbb ccc', 5)).toEqual(['aaa ', 'bbb ', 'ccc']);
  });

  it('prefers a paragraph break over a later line or word break', () => {
    const text = `${'a '.repeat(35)}\n\n${'b '.repeat(10)}\n${'c '.repeat(30)}`;
    const [first] = splitForLimit(text, 100);
    expect(first?.endsWith('\n\n')).toBe(true);
  });

  it('prefers a sentence end over a later word break', () => {
    const text = `${'word '.repeat(14)}end. ${'more '.repeat(5)}${'tail '.repeat(20)}`;
    const [first] = splitForLimit(text, 100);
    expect(first?.endsWith('end. ')).toBe(true);
  });

  it('keeps a line indentation with its line', () => {
    const text = `${'x'.repeat(50)}\n    ${'y'.repeat(40)}\n    ${'z'.repeat(30)}`;
    const pieces = splitForLimit(text, 100);
    expect(pieces[1]?.startsWith('    ')).toBe(true);
    checkExact(text, pieces, 100);
  });

  it('cuts before a code fence rather than inside it', () => {
    const code = '```js\n' + 'let a = 1;\n'.repeat(8) + '```\n';
    const text = `${'intro words '.repeat(6)}\n${code}after`;
    const pieces = splitForLimit(text, 120);
    checkExact(text, pieces, 120);
    const fenceStart = text.indexOf('```');
    const fenceEnd = text.lastIndexOf('```\n') + 4;
    for (const c of cuts(pieces)) expect(c <= fenceStart || c >= fenceEnd).toBe(true);
  });

  it('cuts a fence longer than the limit only at line boundaries', () => {
    const code = '```\n' + 'console.log(42);\n'.repeat(40) + '```\n';
    const pieces = splitForLimit(code, 100);
    checkExact(code, pieces, 100);
    for (const c of cuts(pieces)) expect(code[c - 1]).toBe('\n');
  });

  it('cuts a single word longer than the limit, but not a surrogate pair', () => {
    const word = '😀'.repeat(30);
    const pieces = splitForLimit(word, 7);
    checkExact(word, pieces, 7);
    expect(pieces.every((p) => p.length === 6)).toBe(true);
  });

  it('cuts CJK text between characters', () => {
    const text = '東京の物件は駅に近いです。'.repeat(20);
    const pieces = splitForLimit(text, 50);
    checkExact(text, pieces, 50);
    for (const c of cuts(pieces)) expect(text[c - 1]).toBe('。');
  });

  it('finds fences, an unclosed one running to the end', () => {
    const text = 'a\n```\nb\n```\nc\n~~~py\nd';
    expect(findFences(text)).toEqual([
      { start: 2, end: 12 },
      { start: 14, end: text.length },
    ]);
  });

  it('nextCut matches the pieces of splitForLimit', () => {
    const { text } = generate(7, 12_000, { maxFence: 900 });
    const pieces = splitForLimit(text, 2000);
    let at = 0;
    for (const p of pieces) {
      expect(nextCut(text, at, 2000)).toBe(at + p.length);
      at += p.length;
    }
  });

  it('splitIntoAtLeast spreads text over existing messages', () => {
    const text = 'one two three four five six seven eight nine ten';
    const pieces = splitIntoAtLeast(text, 100, 3);
    expect(pieces).toHaveLength(3);
    expect(pieces.join('')).toBe(text);
    expect(pieces.every((p) => p.length > 0)).toBe(true);
    expect(splitIntoAtLeast('a', 100, 3)).toEqual(['a', '', '']);
  });

  describe('property: random answers of 10,000+ characters', () => {
    const seeds = Array.from({ length: 40 }, (_, i) => i + 1);
    it.each([2000, 3000])('at limit %i: exact, within the limit, no cut in a word or a fence', (limit) => {
      for (const seed of seeds) {
        const { text, fences } = generate(seed * 31 + limit, 10_000 + seed * 300, { maxFence: limit / 2 });
        expect(text.length).toBeGreaterThanOrEqual(10_000);
        const pieces = splitForLimit(text, limit);
        checkExact(text, pieces, limit);
        expect(pieces.length).toBeGreaterThanOrEqual(Math.ceil(text.length / limit));
        for (const c of cuts(pieces)) {
          const atWordEdge =
            isSpace(text[c - 1]) || isSpace(text[c]) || CJK.test(text[c - 1] ?? '') || CJK.test(text[c] ?? '');
          expect(atWordEdge).toBe(true);
          for (const [s, e] of fences) expect(c > s && c < e).toBe(false);
        }
        // Pieces are reasonably full: cuts come from the last part of the window.
        for (const p of pieces.slice(0, -1)) expect(p.length).toBeGreaterThan(limit * 0.4);
      }
    });

    it('stays exact with words and fences longer than the limit', () => {
      for (const seed of seeds) {
        const { text } = generate(seed, 10_500, { maxFence: 100_000, longWord: 600 });
        checkExact(text, splitForLimit(text, 500), 500);
      }
    });
  });
});

describe('streamingCut: what a piece may show while its text streams in', () => {
  const texts = (): Array<{ text: string; limit: number }> => {
    const out: Array<{ text: string; limit: number }> = [];
    for (let seed = 1; seed <= 12; seed++) {
      const limit = seed % 2 === 0 ? 300 : 500;
      out.push({ text: generate(seed * 31, 2500, { maxFence: 900, longWord: 350 }).text, limit });
    }
    // Hand-made traps: a fence opened after prose, a word longer than the window, blank lines arriving late.
    out.push({
      text: `Intro line.\n\n\`\`\`py\n${'x = 1\n'.repeat(120)}\`\`\`\nafter ${'word '.repeat(200)}`,
      limit: 300,
    });
    out.push({ text: `Hello world ${'y'.repeat(700)} tail ${'z '.repeat(300)}`, limit: 300 });
    out.push({ text: `${'a '.repeat(100)}\n${'b '.repeat(30)}\n\n${'c '.repeat(300)}`, limit: 300 });
    return out;
  };

  it('never lets a later cut come before what it said was safe, and decides only final cuts', () => {
    for (const { text, limit } of texts()) {
      let start = 0;
      while (start < text.length) {
        const finalCut = nextCut(text, start, limit);
        let lastSafe = start;
        for (let len = start; len <= Math.min(text.length, start + limit + 5); len += 2) {
          const prefix = text.slice(0, len);
          const view = streamingCut(prefix, start, limit);
          expect(view.safe).toBeLessThanOrEqual(finalCut);
          expect(view.safeBoundary).toBeLessThanOrEqual(view.safe);
          expect(view.safe).toBeGreaterThanOrEqual(lastSafe);
          lastSafe = view.safe;
          if (view.cut !== undefined) {
            expect(view.cut).toBe(finalCut);
            break;
          }
        }
        start = finalCut;
      }
    }
  });

  it('with a committed floor, the piece ends at or after it and after what was shown', () => {
    for (const { text, limit } of texts()) {
      let start = 0;
      while (start < text.length && start + limit < text.length) {
        // Commit, as the relay does, to the latest settled cut once the piece is half full.
        const at = start + Math.floor(limit * 0.8);
        const floor = streamingCut(text.slice(0, at), start, limit).settledCut;
        const finalCut = nextCut(text, start, limit, floor);
        if (floor !== undefined) expect(finalCut).toBeGreaterThanOrEqual(floor);
        for (let len = at; len <= start + limit + 1; len++) {
          const view = streamingCut(text.slice(0, len), start, limit, floor);
          expect(view.safe).toBeLessThanOrEqual(finalCut);
          if (floor !== undefined) expect(view.safe).toBeGreaterThanOrEqual(floor);
          if (view.cut !== undefined) {
            expect(view.cut).toBe(finalCut);
            break;
          }
        }
        expect(splitFrom(text, start, limit, floor)[0]).toBe(text.slice(start, finalCut));
        start = finalCut;
      }
    }
  });

  it('shows the whole text of a short prose piece, minus its unfinished word', () => {
    // 'wor' may grow into a word longer than the window, which would put the cut before it.
    expect(streamingCut('Hello there, wor', 0, 100)).toMatchObject({ safe: 13, safeBoundary: 13 });
    expect(streamingCut('Hello there, world ', 0, 100).safe).toBe(18);
    expect(streamingCut('Hello there, world and', 0, 14).cut).toBe(13);
    // An unclosed fence after prose: nothing past the fence until it closes (the cut may land before it).
    const fenced = 'Some prose first.\n```\ncode line\nmore code\n';
    expect(streamingCut(fenced, 0, 100).safe).toBe(fenced.indexOf('```'));
    expect(streamingCut(`${fenced}\`\`\`\nafter`, 0, 100).safe).toBe(fenced.length + 4);
  });
});
