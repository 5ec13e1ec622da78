/**
 * A streamed answer the test drives: push fragments, then finish, end early or fail.
 * Also the shared fixtures of the relay tests.
 */
import type { AnswerEvent, FinalEvent } from '../../../src/service/answer-events';

type Item = { kind: 'event'; event: AnswerEvent } | { kind: 'end' } | { kind: 'error'; error: unknown };

export class FakeAnswerStream implements AsyncIterable<AnswerEvent> {
  private readonly items: Item[] = [];
  private waiter: (() => void) | undefined;
  /** Everything pushed as deltas so far. */
  text = '';
  returned = false;

  push(text: string): void {
    this.text += text;
    this.add({ kind: 'event', event: { type: 'delta', text } });
  }

  final(answer = this.text, extra: Partial<FinalEvent> = {}): void {
    this.add({
      kind: 'event',
      event: { type: 'final', questionId: 1, answerId: 2, answer, totalTokens: 10, ...extra },
    });
  }

  end(): void {
    this.add({ kind: 'end' });
  }

  fail(error: unknown): void {
    this.add({ kind: 'error', error });
  }

  private add(item: Item): void {
    this.items.push(item);
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AnswerEvent> {
    try {
      for (;;) {
        while (this.items.length === 0) await new Promise<void>((r) => (this.waiter = r));
        const item = this.items.shift() as Item;
        if (item.kind === 'end') return;
        if (item.kind === 'error') throw item.error;
        yield item.event;
      }
    } finally {
      this.returned = true;
    }
  }
}

export { silentLog } from '../../support/silent-log';

/** Small seeded PRNG so a failing case can be replayed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A long Markdown answer: paragraphs, lists, sentences, emoji, CJK and code fences. */
export function longAnswer(seed: number, length: number): string {
  const r = rng(seed);
  const word = (): string => {
    const n = 1 + Math.floor(r() * 10);
    let w = '';
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(r() * 26));
    return w;
  };
  let text = '';
  while (text.length < length) {
    const roll = r();
    if (roll < 0.03 && (text === '' || text.endsWith('\n'))) {
      text += '```python\n';
      const lines = 2 + Math.floor(r() * 15);
      for (let i = 0; i < lines; i++) text += `    ${word()} = ${word()}(${word()}, ${word()})\n`;
      text += '```\n';
    } else if (roll < 0.08) text += '\n\n';
    else if (roll < 0.12) text += `\n- ${word()} `;
    else if (roll < 0.2) text += `${word()}. `;
    else if (roll < 0.23) text += '🏡 ';
    else if (roll < 0.26) text += '公寓出售。';
    else text += `${word()} `;
  }
  return text;
}

/** Splits text into fragments of random sizes (a stream's deltas). */
export function fragments(text: string, seed: number, max = 60): string[] {
  const r = rng(seed);
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    let n = 1 + Math.floor(r() * max);
    // The service never splits a surrogate pair across fragments.
    const code = text.charCodeAt(at + n - 1);
    if (code >= 0xd800 && code <= 0xdbff) n++;
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}
