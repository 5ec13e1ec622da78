/**
 * The prefix invariant: while an answer streams, every version of every message (post, edit, native
 * append) is a prefix of that message's final text, and the finals joined equal the answer exactly.
 */
import { Relay, type RelayOptions, type RelayResult } from '../../../src/core/relay/relay';
import { eachTestbed, startRun } from './testbed';
import type { TestSurface, TestSurfaceOptions } from '../../support/test-surface';
import { fragments, longAnswer, rng, silentLog } from './fake-stream';

const bed = eachTestbed();
let n = 0;

/** Long Markdown with the shapes that move cuts: paragraphs, lines, fences (some longer than the limit), long words. */
function trickyAnswer(seed: number, length: number, limit: number): string {
  const r = rng(seed);
  let text = '';
  while (text.length < length) {
    const roll = r();
    if (roll < 0.1) text += `${'w'.repeat(Math.floor(r() * limit * 0.9))} `;
    else if (roll < 0.2) {
      if (!text.endsWith('\n')) text += '\n';
      text += '```js\n';
      const lines = Math.floor(r() * (limit / 12));
      for (let i = 0; i < lines; i++) text += `  call(${i}, "${'k'.repeat(Math.floor(r() * 8))}");\n`;
      text += '```\n';
    } else if (roll < 0.3) text += '\n\n';
    else text += longAnswer(Math.floor(r() * 1e6), 50 + Math.floor(r() * 600));
  }
  return text;
}

async function relayAnswer(
  answer: string,
  opts: {
    limit: number;
    fragmentMax: number;
    everyMs: number;
    seed: number;
    relay?: RelayOptions;
    surface?: TestSurfaceOptions;
  },
): Promise<{ surface: TestSurface; result: RelayResult }> {
  const surface = bed.surface({ maxMessageLength: opts.limit, ...opts.surface });
  const relay = new Relay({
    store: bed.store,
    log: silentLog,
    now: Date.now,
    instanceId: 'p',
    options: { minInterimIntervalMs: 10, ...opts.relay },
  });
  const { stream, running } = startRun(relay, surface, {
    retry: { action: 'answer.retry', value: 'r' },
    answerKey: `prefix-${++n}`,
  });
  for (const f of fragments(answer, opts.seed, opts.fragmentMax)) {
    stream.push(f);
    await new Promise((r) => (opts.everyMs > 0 ? setTimeout(r, opts.everyMs) : setImmediate(r)));
  }
  stream.final();
  return { surface, result: await running };
}

function expectPrefixes(surface: TestSurface, result: RelayResult, answer: string, limit: number): number {
  expect(result.status).toBe('complete');
  expect(surface.joinedText(result.messages)).toBe(answer);
  let versions = 0;
  for (const ref of result.messages) {
    const m = surface.messages.get(ref.id);
    expect(m).toBeDefined();
    const final = m?.current.text ?? '';
    expect(final.length).toBeLessThanOrEqual(limit);
    for (const v of m?.versions ?? []) {
      versions++;
      if (!final.startsWith(v.text))
        throw new Error(
          `message ${ref.id} showed ${JSON.stringify(v.text.slice(-60))} (${v.text.length}), final ends ${JSON.stringify(final.slice(-60))} (${final.length})`,
        );
    }
  }
  return versions;
}

describe('prefix invariant', () => {
  const cases: Array<{ limit: number; seed: number; native: boolean }> = [];
  for (const limit of [2000, 3000])
    for (let seed = 1; seed <= 4; seed++) cases.push({ limit, seed, native: seed % 2 === 0 });

  it.each(cases)(
    'limit $limit seed $seed native $native: every version is a prefix of its message final',
    async ({ limit, seed, native }) => {
      const answer = trickyAnswer(seed * 7919 + limit, 11_000, limit);
      const { surface, result } = await relayAnswer(answer, {
        limit,
        seed,
        fragmentMax: 20 + (seed % 3) * 50,
        everyMs: 1,
        // A short hold commits cuts often, which the invariant must survive too.
        relay: { maxHoldMs: seed <= 2 ? 5 : 1000 },
        surface: native ? { native: { ttlMs: 300_000 } } : {},
      });
      const versions = expectPrefixes(surface, result, answer, limit);
      expect(result.messages.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / limit));
      expect(versions).toBeGreaterThan(result.messages.length);
    },
    30_000,
  );
});

describe('native streaming shows text as it arrives', () => {
  it('starts each later message with the text it already has, not empty until sealed', async () => {
    const limit = 1000;
    const answer = longAnswer(21, 5200);
    // A long-window edit budget spaces interims about 1.2 s apart: a fast answer fills a message sooner.
    const { surface, result } = await relayAnswer(answer, {
      limit,
      seed: 21,
      fragmentMax: 80,
      everyMs: 4,
      surface: { native: { ttlMs: 300_000 }, budget: { edit: { limit: 50, windowMs: 60_000 } } },
    });
    expectPrefixes(surface, result, answer, limit);
    expect(surface.nativeStreams.length).toBe(result.messages.length);
    expect(result.messages.length).toBeGreaterThanOrEqual(5);
    // Every message after the first showed (part of) its text while still a live stream.
    for (const s of surface.nativeStreams.slice(1)) {
      const m = surface.messages.get(s.ref.id);
      const live = (m?.versions ?? []).filter((v) => v.typing !== false && v !== m?.current);
      expect(live.some((v) => v.text.length > 0)).toBe(true);
    }
  });

  it('appends about once a second while a slow answer streams, only whole words', async () => {
    const limit = 3000;
    const answer = longAnswer(33, 1500);
    const { surface, result } = await relayAnswer(answer, {
      limit,
      seed: 33,
      fragmentMax: 20,
      everyMs: 8,
      relay: { minInterimIntervalMs: 300 },
      surface: { native: { ttlMs: 300_000 } },
    });
    expectPrefixes(surface, result, answer, limit);
    const appends = surface.calls.filter((c) => c.op === 'append');
    expect(appends.length).toBeGreaterThanOrEqual(2);
    for (const a of appends) expect(a.text?.length).toBeGreaterThan(0);
    for (let i = 1; i < appends.length; i++)
      expect((appends[i]?.at ?? 0) - (appends[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(290);
  });
});
