/**
 * The segmenter alone: text in, pieces and the live message's view out. No timers, no platform, no
 * relay: the clock is a number the test moves.
 */
import { messagesOf, Segmenter, type SegmentView } from '../../../src/core/relay/segmenter';
import { trustHosts } from '../../../src/core/text/links';
import { textSpans, withoutSpanMarks } from '../../../src/core/text/untrusted';
import { splitForLimit } from '../../../src/core/relay/split';
import { fragments, longAnswer } from './fake-stream';

const ENDING = { buttons: [], retry: { action: 'answer.retry', value: 'r' } };

/** The final pieces of a complete answer (fails the test otherwise). */
function piecesOf(view: SegmentView): readonly string[] {
  if (view.phase !== 'complete') throw new Error(`expected a complete answer, got ${view.phase}`);
  return view.finished;
}

/**
 * Streams `answer` in fragments, settling after each with the clock moving `stepMs`, and records
 * every live text shown per message index (as the plain and the native view). Returns the final pieces.
 */
function stream(
  answer: string,
  opts: { limit: number; seed: number; fragmentMax: number; maxHoldMs?: number; stepMs?: number },
): { pieces: readonly string[]; shown: Map<number, string[]>; finishedSeen: string[][] } {
  const seg = new Segmenter({ limit: opts.limit, maxHoldMs: opts.maxHoldMs ?? 1000 });
  const shown = new Map<number, string[]>();
  const finishedSeen: string[][] = [];
  let now = 0;
  const record = (): void => {
    for (const native of [false, true]) {
      const view = seg.view(native);
      if (view.phase !== 'streaming') throw new Error('still streaming');
      finishedSeen.push([...view.finished]);
      const list = shown.get(view.finished.length) ?? [];
      list.push(view.live);
      shown.set(view.finished.length, list);
    }
  };
  for (const f of fragments(answer, opts.seed, opts.fragmentMax)) {
    seg.push(f);
    seg.settle(now);
    record();
    now += opts.stepMs ?? 50;
  }
  expect(seg.finish(answer, seg.finishedCount + 1)).toBe(true);
  return { pieces: piecesOf(seg.view(false)), shown, finishedSeen };
}

describe('Segmenter: exact pieces', () => {
  const cases: Array<{ limit: number; seed: number; fragmentMax: number; maxHoldMs: number }> = [];
  for (const limit of [200, 700, 2000])
    for (let seed = 1; seed <= 4; seed++)
      cases.push({ limit, seed, fragmentMax: 1 + seed * 17, maxHoldMs: seed % 2 === 0 ? 0 : 1000 });

  it.each(cases)(
    'limit $limit seed $seed: the pieces join to the answer, each within the limit',
    ({ limit, seed, fragmentMax, maxHoldMs }) => {
      const answer = longAnswer(seed * 101 + limit, limit * 4 + 123);
      const { pieces } = stream(answer, { limit, seed, fragmentMax, maxHoldMs });
      expect(pieces.join('')).toBe(answer);
      for (const p of pieces) expect(p.length).toBeLessThanOrEqual(limit);
      expect(pieces.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / limit));
    },
  );

  it.each(cases)(
    'limit $limit seed $seed: every live version is a prefix of its final piece, finished pieces never change',
    ({ limit, seed, fragmentMax, maxHoldMs }) => {
      const answer = longAnswer(seed * 131 + limit, limit * 4 + 77);
      const { pieces, shown, finishedSeen } = stream(answer, { limit, seed, fragmentMax, maxHoldMs });
      let versions = 0;
      for (const [index, texts] of shown) {
        const final = pieces[index] ?? '';
        for (const t of texts) {
          versions++;
          if (!final.startsWith(t)) throw new Error(`message ${index} showed ${JSON.stringify(t.slice(-40))}`);
        }
      }
      expect(versions).toBeGreaterThan(pieces.length);
      for (const f of finishedSeen) expect(pieces.slice(0, f.length)).toEqual(f);
    },
  );

  it('without committed holds, streaming cuts where splitting the whole answer would', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const answer = longAnswer(seed * 977, 5000);
      const { pieces } = stream(answer, { limit: 900, seed, fragmentMax: 40, maxHoldMs: Number.POSITIVE_INFINITY });
      expect(pieces).toEqual(splitForLimit(answer, 900));
    }
  });
});

describe('Segmenter: where messages end', () => {
  it('cuts at a paragraph break within the limit, not at the limit', () => {
    const first = `${'alpha beta gamma. '.repeat(4)}\n\n`;
    const second = 'delta epsilon zeta. '.repeat(4);
    const seg = new Segmenter({ limit: 100, maxHoldMs: 1000 });
    seg.push(first + second);
    seg.settle(0);
    // The second paragraph does not fit: the first message's cut is decided at the paragraph. The
    // live one shows up to its last settled cut (the last word may still grow).
    expect(seg.view(false)).toEqual({ phase: 'streaming', finished: [first], live: 'delta epsilon zeta. '.repeat(3) });
    seg.finish(first + second, 2);
    expect(piecesOf(seg.view(false))).toEqual([first, second]);
  });

  it('moves a code fence that fits whole to the next message instead of cutting inside it', () => {
    const intro = `${'Here is the code you asked for. '.repeat(2)}\n`;
    const fence = `\`\`\`js\n${'  call(1, "k");\n'.repeat(5)}\`\`\`\n`;
    const answer = `${intro}${fence}Done.`;
    const seg = new Segmenter({ limit: 120, maxHoldMs: 1000 });
    for (const ch of answer) {
      seg.push(ch);
      seg.settle(0);
    }
    seg.finish(answer, seg.finishedCount + 1);
    const pieces = piecesOf(seg.view(false));
    expect(pieces.join('')).toBe(answer);
    expect(pieces[0]).toBe(intro);
    expect(pieces[1]?.startsWith('```js\n')).toBe(true);
  });

  it('keeps an unclosed fence exact: the cut before it holds, and what follows stays inside it', () => {
    const intro = `${'Some prose before the code. '.repeat(3)}\n`;
    const code = `\`\`\`python\n${'x = compute(y)\n'.repeat(12)}`;
    const seg = new Segmenter({ limit: 150, maxHoldMs: 1000 });
    const shown: string[] = [];
    for (const f of fragments(intro + code, 5, 7)) {
      seg.push(f);
      seg.settle(0);
      const v = seg.view(false);
      if (v.phase === 'streaming' && v.finished.length === 0) shown.push(v.live);
    }
    // The fence is never closed: the answer is interrupted with it open.
    expect(seg.interrupt('the chatbot service stopped answering')).toBe(true);
    const view = seg.view(false);
    if (view.phase !== 'interrupted') throw new Error('expected an interruption');
    expect([...view.finished, view.partial].join('')).toBe(intro + code);
    expect(view.finished[0]).toBe(intro);
    for (const s of shown) expect(intro.startsWith(s)).toBe(true);
    for (const p of [...view.finished, view.partial]) expect(p.length).toBeLessThanOrEqual(150);
  });

  it('never separates the halves of a surrogate pair, even in a word longer than the limit', () => {
    const answer = `${'🏡'.repeat(40)} ${'公寓出售。'.repeat(10)} 👩‍💻 done`;
    for (const limit of [7, 11, 31]) {
      const seg = new Segmenter({ limit, maxHoldMs: 0 });
      for (const f of fragments(answer, limit, 5)) {
        seg.push(f);
        seg.settle(0);
        const v = seg.view(true);
        if (v.phase === 'streaming') expect(v.live).not.toMatch(/[\ud800-\udbff]$/);
      }
      seg.finish(answer, seg.finishedCount + 1);
      const pieces = piecesOf(seg.view(false));
      expect(pieces.join('')).toBe(answer);
      for (const p of pieces) {
        expect(p.length).toBeLessThanOrEqual(limit);
        expect(p).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
      }
    }
  });
});

describe('Segmenter: the live view', () => {
  it('grows with text that arrives a character at a time; a native view shows only whole words', () => {
    const answer = 'The house on Larimer Street has three bedrooms and a garden. It is for sale.';
    const seg = new Segmenter({ limit: 2000, maxHoldMs: 1000 });
    let plain = '';
    let native = '';
    let grewPlain = 0;
    for (const ch of answer) {
      seg.push(ch);
      seg.settle(0);
      const p = seg.view(false);
      const n = seg.view(true);
      if (p.phase !== 'streaming' || n.phase !== 'streaming') throw new Error('still streaming');
      expect(p.live.startsWith(plain)).toBe(true);
      expect(n.live.startsWith(native)).toBe(true);
      // A native append cannot be taken back: it ends where a word ends.
      expect(n.live === '' || /\s$/.test(n.live)).toBe(true);
      if (p.live !== plain) grewPlain++;
      plain = p.live;
      native = n.live;
    }
    expect(grewPlain).toBeGreaterThanOrEqual(10);
    expect(answer.startsWith(plain)).toBe(true);
    expect(plain.length).toBeGreaterThan(answer.length - 10);
    seg.finish(answer, 1);
    expect(piecesOf(seg.view(false))).toEqual([answer]);
  });

  it('commits a cut after maxHoldMs when settled text stays hidden, so the visible text grows', () => {
    // A paragraph break past half the room, then words: the cut could still land at the paragraph.
    const para = `${'word '.repeat(10)}word\n\n`;
    const text = `${para}${'more '.repeat(7)}`;
    const seg = new Segmenter({ limit: 100, maxHoldMs: 1000 });
    const live = (): string => {
      const v = seg.view(false);
      return v.phase === 'streaming' ? v.live : '';
    };
    seg.push(text);
    seg.settle(5000);
    expect(live()).toBe(para);
    expect(seg.holdWaitMs(5000)).toBe(1000);
    seg.settle(5999);
    expect(live()).toBe(para);
    expect(seg.holdWaitMs(5999)).toBe(1);
    seg.settle(6000);
    expect(seg.holdWaitMs(6000)).toBeUndefined();
    expect(live().length).toBeGreaterThan(para.length);
    expect(text.startsWith(live())).toBe(true);
    // The committed cut stands: the first message ends no earlier than what it showed.
    const shown = live();
    const answer = `${text}${'overflowing words here '.repeat(4)}`;
    seg.finish(answer, 1);
    const pieces = piecesOf(seg.view(false));
    expect(pieces.join('')).toBe(answer);
    expect(pieces[0]?.startsWith(shown)).toBe(true);
  });

  it('holds an interim of a nearly full message for its seal, at most maxHoldMs', () => {
    const seg = new Segmenter({ limit: 100, maxHoldMs: 400 });
    seg.push('word '.repeat(10));
    expect(seg.interimWaitMs(0)).toBe(0);
    seg.push('word '.repeat(9));
    expect(seg.interimWaitMs(1000)).toBe(400);
    expect(seg.interimWaitMs(1300)).toBe(100);
    expect(seg.interimWaitMs(1500)).toBe(0);
    // A word that cannot join decides the cut: push says so, settle seals, and the wait starts over.
    expect(seg.push(`${'x'.repeat(20)} `)).toBe(true);
    expect(seg.settle(1500)).toBe(true);
    expect(seg.finishedCount).toBe(1);
    expect(seg.interimWaitMs(1500)).toBe(0);
  });

  it('ends a native message where it stands (sealShown): the next one starts right after', () => {
    const seg = new Segmenter({ limit: 1000, maxHoldMs: 1000 });
    seg.push('one two three four ');
    const shown = seg.view(true);
    if (shown.phase !== 'streaming') throw new Error('still streaming');
    seg.sealShown(shown.live.length);
    // The trailing space may still grow into a paragraph break: 'four ' is not shown yet.
    expect(shown.live).toBe('one two three ');
    seg.push('five six');
    seg.finish('one two three four five six', 2);
    expect(piecesOf(seg.view(false))).toEqual(['one two three ', 'four five six']);
  });
});

describe('Segmenter: endings', () => {
  it('an empty answer is one empty message, with the controls of a complete answer', () => {
    const seg = new Segmenter({ limit: 100, maxHoldMs: 1000 });
    expect(seg.view(false)).toEqual({ phase: 'streaming', finished: [], live: '' });
    expect(seg.finish('', 1)).toBe(true);
    const feedback = { action: 'rate', positive: 'a1:up', negative: 'a1:down' };
    const buttons = [{ label: 'Talk to a human', action: 'handoff', value: 'h' }];
    expect(messagesOf(seg.view(false), { ...ENDING, buttons, feedback })).toEqual([
      { text: '', markdown: true, typing: false, buttons, feedback },
    ]);
  });

  it('an interruption keeps the partial text exact, split to the limit, with the reason and Retry last', () => {
    const seg = new Segmenter({ limit: 50, maxHoldMs: 1000 });
    const partial = 'Prices in Denver start at $3,475 a month for a two bedroom flat near the park';
    seg.push(partial.slice(0, 40));
    seg.catchUp(partial.slice(0, 30)); // shorter: ignored
    seg.catchUp(partial); // an error carried the rest
    expect(seg.interrupt('the chatbot service stopped answering (no new text for 5 s)')).toBe(true);
    expect(seg.finish(partial, 2)).toBe(false);
    expect(seg.push(' more')).toBe(false);
    const messages = messagesOf(seg.view(false), ENDING);
    expect(messages.map((m) => m.text).join('')).toBe(partial);
    expect(messages.length).toBe(2);
    expect(messages[0]).toEqual({ text: messages[0]?.text, markdown: true, typing: false });
    expect(messages[1]?.notice).toBe(
      '⚠️ Answer interrupted: the chatbot service stopped answering (no new text for 5 s). Press Retry to ask again.',
    );
    expect(messages[1]?.buttons).toEqual([{ label: 'Retry', action: 'answer.retry', value: 'r' }]);
  });

  it('a final answer that contradicts the streamed text still fills the messages already posted', () => {
    const seg = new Segmenter({ limit: 40, maxHoldMs: 1000 });
    seg.push('Streamed words that the final answer will not repeat at all, ');
    seg.push('spanning three messages of forty characters each, more or less.');
    seg.settle(0);
    expect(seg.finishedCount).toBe(3);
    const final = 'A short, different final answer.';
    seg.finish(final, 4);
    const pieces = piecesOf(seg.view(false));
    expect(pieces.join('')).toBe(final);
    expect(pieces.length).toBe(4);
    for (const p of pieces) expect(p.length).toBeGreaterThan(0);
  });

  it('a final answer that keeps the sealed messages but changes the live one replaces only the rest', () => {
    const seg = new Segmenter({ limit: 40, maxHoldMs: 1000 });
    seg.push('First message words that fill the room, and then a live tail');
    seg.settle(0);
    expect(seg.finishedCount).toBe(1);
    const view = seg.view(false);
    const sealed = view.finished[0] ?? '';
    const final = `${sealed}a corrected ending.`;
    seg.finish(final, 2);
    expect(piecesOf(seg.view(false))).toEqual([sealed, 'a corrected ending.']);
    // A streaming view has the typing mark on its live message only.
    expect(messagesOf({ phase: 'streaming', finished: [sealed], live: 'a c' }, ENDING).map((m) => m.typing)).toEqual([
      false,
      true,
    ]);
  });
});

describe('Segmenter: the answer’s links (core/text/links.ts)', () => {
  const links = trustHosts(['homes.example.com']);
  const evil = '[Reset your password](https://evil.example/reset)';
  const listing = '[12 Oak St](https://homes.example.com/12-oak)';

  it('every version of every message carries an untrusted link as text, a listing link as a link', () => {
    const seg = new Segmenter({ limit: 60, maxHoldMs: 1000 });
    const answer = `See ${evil} now. And ${listing} too.`;
    const seen: string[][] = [];
    for (const f of [answer.slice(0, 20), answer.slice(20, 45), answer.slice(45)]) {
      seg.push(f);
      seg.settle(0);
      seen.push(messagesOf(seg.view(false), ENDING, links).map((m) => m.text));
    }
    seg.finish(answer, 1);
    const final = messagesOf(seg.view(false), ENDING, links).map((m) => m.text);
    seen.push(final);
    expect(final.map(withoutSpanMarks).join('')).toBe(answer);
    for (const texts of seen)
      for (const t of texts) {
        const asLinks = textSpans(t)
          .filter((s) => !s.untrusted)
          .map((s) => s.text)
          .join('');
        expect(asLinks).not.toContain('](https://evil');
      }
    expect(final.join('')).toContain(listing);
    // Without a trust, no link shows under its label.
    expect(
      messagesOf(seg.view(false), ENDING)
        .map((m) => m.text)
        .join(''),
    ).not.toContain(listing);
  });

  it('span marks in the answer are dropped, so lengths stay the text’s', () => {
    const seg = new Segmenter({ limit: 100, maxHoldMs: 1000 });
    seg.push('a\uE002b\uE003c');
    expect(seg.text).toBe('abc');
  });
});
