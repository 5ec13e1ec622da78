/**
 * Synthetic streamed answers: a deterministic ~2,000-character answer, cut into word groups that are
 * pushed on a timer (every 40-80 ms) whether or not the relay keeps up, as a network stream would,
 * then the final event with the exact answer.
 */
import type { AnswerEvent } from '../../src/service/answer-events';
import { AnswerQueue } from '../answer-queue';

/** Small deterministic PRNG (mulberry32): every run relays the same answers. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the listing at Maple Street offers three bedrooms two baths and a renovated kitchen with quartz counters ' +
  'close to schools parks and transit the asking price is negotiable and the seller prefers a quick closing ' +
  'for rent units in Austin start at a monthly rate that includes parking while for sale homes in Denver ' +
  'show steady demand the HOA covers landscaping snow removal and the community pool open houses run on ' +
  'Saturday afternoons and buyers should bring a pre-approval letter'
).split(' ');

export function syntheticAnswer(seed: number, length = 2_000): string {
  const r = rng(seed);
  let out = '';
  let sentence = 0;
  while (out.length < length) {
    const n = 8 + Math.floor(r() * 12);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)] ?? 'home');
    const first = words[0] ?? 'home';
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    out += words.join(' ') + (r() < 0.15 ? ` ($${(200 + Math.floor(r() * 800)) * 1000})` : '') + '.';
    sentence++;
    out += sentence % 5 === 0 ? '\n\n' : sentence % 7 === 3 ? '\n- ' : ' ';
  }
  return out.trimEnd();
}

/** Word groups of 1-4 words (with their spaces), concatenating to `text`. */
export function wordGroups(text: string, seed: number): string[] {
  const r = rng(seed ^ 0x9e3779b9);
  const tokens = text.match(/\S+\s*|\s+/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const n = 1 + Math.floor(r() * 4);
    out.push(tokens.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

/** A push-driven answer stream; `endedAt` is when its final event was emitted. */
export class TimedAnswerStream implements AsyncIterable<AnswerEvent> {
  private readonly events = new AnswerQueue();
  private timer: NodeJS.Timeout | undefined;
  /** When the first fragment was pushed. */
  firstAt: number | undefined;
  endedAt: number | undefined;

  constructor(
    readonly answer: string,
    private readonly seed: number,
    private readonly durationMs: number,
  ) {}

  /** Starts pushing fragments: the groups spread over `durationMs` at 40-80 ms intervals, then the final. */
  start(): void {
    const groups = wordGroups(this.answer, this.seed);
    const r = rng(this.seed + 7);
    // Gaps of 40-80 ms; as many fragments as fit the duration, the text regrouped to that many.
    const gaps: number[] = [];
    let total = 0;
    while (total < this.durationMs) {
      const g = 40 + r() * 40;
      gaps.push(g);
      total += g;
    }
    const perGap = Math.max(1, Math.ceil(groups.length / gaps.length));
    const fragments: string[] = [];
    for (let i = 0; i < groups.length; i += perGap) fragments.push(groups.slice(i, i + perGap).join(''));
    const at: number[] = [];
    let t = 0;
    for (let i = 0; i < fragments.length; i++) {
      t += gaps[i] ?? 60;
      at.push(t);
    }
    // Stretch to the duration so every answer takes about as long.
    const scale = this.durationMs / Math.max(1, t);
    const started = Date.now();
    let i = 0;
    const tick = (): void => {
      const fragment = fragments[i];
      if (fragment !== undefined) {
        this.firstAt ??= Date.now();
        this.events.push({ type: 'delta', text: fragment });
        i++;
      }
      if (i >= fragments.length) {
        this.endedAt = Date.now();
        this.events.push({
          type: 'final',
          questionId: this.seed,
          answerId: this.seed,
          answer: this.answer,
          totalTokens: Math.ceil(this.answer.length / 4),
        });
        this.events.close();
        return;
      }
      this.timer = setTimeout(tick, Math.max(0, started + (at[i] ?? 0) * scale - Date.now()));
    };
    this.timer = setTimeout(tick, Math.max(0, (at[0] ?? 0) * scale));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.events.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<AnswerEvent> {
    return this.events[Symbol.asyncIterator]();
  }
}
