import { Relay, type RelayRequest, type RelayResult } from '../../../src/core/relay/relay';
import { RelayTestbed } from './testbed';
import { splitForLimit } from '../../../src/core/relay/split';
import { inflightKey, inflightLease } from '../../../src/core/relay/inflight';
import type { Button, Place } from '../../../src/core/surface';
import type { SqliteStore } from '../../../src/state/sqlite-store';
import { TEST_SURFACE, type TestSurface, type TestSurfaceOptions } from '../../support/test-surface';
import { FakeAnswerStream, fragments, longAnswer, silentLog } from './fake-stream';
import { waitFor } from '../../../fakes/wait-for';

const TALK: Button = { action: 'handoff.request', label: 'Talk to a human', value: 'conv1' };
const RETRY = { action: 'answer.retry', value: 'q42' };

let place: Place;
let placeCounter = 0;
let store: SqliteStore;
let bed: RelayTestbed;
let relay: Relay;

function setup(options: ConstructorParameters<typeof Relay>[0]['options'] = {}): void {
  relay = new Relay({
    store,
    log: silentLog,
    now: Date.now,
    instanceId: 'inst-a',
    options: { minInterimIntervalMs: 30, ...options },
  });
}

beforeEach(() => {
  placeCounter++;
  place = { surface: TEST_SURFACE, workspace: 'W1', channel: 'C1', thread: `T${placeCounter}` };
  bed = new RelayTestbed();
  store = bed.store;
  setup();
});

afterEach(async () => {
  await bed.close();
});

function request(surface: TestSurface, events: FakeAnswerStream, extra: Partial<RelayRequest> = {}): RelayRequest {
  return {
    surface,
    place,
    events,
    finalButtons: [TALK],
    retry: RETRY,
    native: surface.streaming !== undefined,
    answerKey: `answer-${placeCounter}-${Math.random()}`,
    ...extra,
  };
}

/** The answer as the platform shows it now: the messages' texts in order. */
function shown(surface: TestSurface, result: RelayResult): string {
  return surface.joinedText(result.messages);
}

function expectComplete(surface: TestSurface, result: RelayResult, answer: string): void {
  expect(result.status).toBe('complete');
  expect(shown(surface, result)).toBe(answer);
  const limit = surface.limits.maxMessageLength;
  result.messages.forEach((ref, i) => {
    const m = surface.messages.get(ref.id);
    expect(m).toBeDefined();
    expect(m?.current.text.length).toBeLessThanOrEqual(limit);
    expect(m?.current.typing ?? false).toBe(false);
    expect(m?.current.buttons ?? []).toEqual(i === result.messages.length - 1 ? [TALK] : []);
  });
}

async function streamAll(stream: FakeAnswerStream, parts: string[], every = 0): Promise<void> {
  for (const p of parts) {
    stream.push(p);
    // Let the relay run between fragments, as a network stream would.
    if (every > 0) await new Promise((r) => setTimeout(r, every));
    else await new Promise((r) => setImmediate(r));
  }
}

describe('Relay', () => {
  it('posts a placeholder at once, before any text arrives', async () => {
    const surface = bed.surface();
    const stream = new FakeAnswerStream();
    const running = relay.run(request(surface, stream));
    await waitFor(() => surface.count('post') === 1, 'the placeholder posted', 5000, surface.changes);
    const [first] = surface.messagesIn(place);
    expect(first?.current).toMatchObject({ text: '', typing: true });
    stream.push('Hello ');
    stream.push('there.');
    stream.final();
    const result = await running;
    expectComplete(surface, result, 'Hello there.');
    expect(result.messages).toHaveLength(1);
    expect(result.final?.answer).toBe('Hello there.');
  });

  it('uses a placeholder it is given', async () => {
    const surface = bed.surface();
    const placeholder = await surface.post(place, { text: '', typing: true });
    const stream = new FakeAnswerStream();
    stream.push('Given.');
    stream.final();
    const result = await relay.run(request(surface, stream, { placeholder }));
    expect(result.messages).toEqual([placeholder]);
    expect(surface.count('post')).toBe(1);
    expectComplete(surface, result, 'Given.');
  });

  it('coalesces many fast fragments into few edits, one in flight per message', async () => {
    const surface = bed.surface({ latencyMs: 25 });
    const stream = new FakeAnswerStream();
    const answer = longAnswer(3, 1500);
    const running = relay.run(request(surface, stream));
    await streamAll(stream, fragments(answer, 3, 5));
    stream.final();
    const result = await running;
    expectComplete(surface, result, answer);
    const deltas = fragments(answer, 3, 5).length;
    expect(deltas).toBeGreaterThan(300);
    expect(surface.count('edit')).toBeLessThan(deltas / 10);
    expect(surface.maxInFlightPerMessage).toBe(1);
    // Every visible state was a prefix of the final answer.
    for (const v of surface.messages.get(result.messages[0]?.id ?? '')?.versions ?? []) {
      expect(answer.startsWith(v.text)).toBe(true);
    }
  });

  it('shows the text growing while it streams', async () => {
    const surface = bed.surface();
    const stream = new FakeAnswerStream();
    const running = relay.run(request(surface, stream));
    // A word shows once it is whole (until then it might grow past the limit and move the cut).
    stream.push('First part ');
    await waitFor(
      () => surface.messagesIn(place)[0]?.current.text === 'First part',
      "'First part' shown",
      5000,
      surface.changes,
    );
    expect(surface.messagesIn(place)[0]?.current.typing).toBe(true);
    stream.push('and second part.');
    stream.final();
    expectComplete(surface, await running, 'First part and second part.');
  });

  it.each([2000, 3000])('splits a 10,000+ character answer with code fences exactly at limit %i', async (limit) => {
    const surface = bed.surface({ maxMessageLength: limit });
    const stream = new FakeAnswerStream();
    const answer = longAnswer(limit, 12_000);
    const running = relay.run(request(surface, stream));
    await streamAll(stream, fragments(answer, limit, 120));
    stream.final();
    const result = await running;
    expectComplete(surface, result, answer);
    expect(result.messages.length).toBe(splitForLimit(answer, limit).length);
    // Messages were sealed while streaming: no message was posted empty at the end.
    expect(result.messages.length).toBeGreaterThanOrEqual(Math.ceil(answer.length / limit));
  });

  it('reconciles a final answer that differs from the streamed text', async () => {
    const surface = bed.surface();
    const stream = new FakeAnswerStream();
    const running = relay.run(request(surface, stream));
    stream.push('Helo wrld ');
    await waitFor(
      () => surface.messagesIn(place)[0]?.current.text === 'Helo wrld',
      "'Helo wrld' shown",
      5000,
      surface.changes,
    );
    stream.final('Hello world!');
    expectComplete(surface, await running, 'Hello world!');
  });

  it('reconciles a final answer shorter than several streamed messages', async () => {
    const surface = bed.surface({ maxMessageLength: 200 });
    const stream = new FakeAnswerStream();
    const running = relay.run(request(surface, stream));
    await streamAll(stream, fragments('word '.repeat(200) + '\n', 9, 30));
    await waitFor(() => surface.count('post') >= 3, 'three messages posted', 5000, surface.changes);
    const answer = 'A much shorter final answer, different from the deltas.';
    stream.final(answer);
    const result = await running;
    expectComplete(surface, result, answer);
    for (const ref of result.messages) expect(surface.messages.get(ref.id)?.current.text).not.toBe('');
  });

  it('never exceeds the platform budget with 5 concurrent answers on one scheduler', async () => {
    const surface = bed.surface({
      maxMessageLength: 1000,
      budget: { edit: { limit: 6, windowMs: 300 }, post: { limit: 5, windowMs: 300 } },
      // The platform counts from when calls arrive: a little slack for the moment a token is used.
      enforce: { edit: { limit: 6, windowMs: 250 }, post: { limit: 5, windowMs: 250 } },
      latencyMs: 5,
    });
    const answers = Array.from({ length: 5 }, (_, i) => longAnswer(100 + i, 2500));
    const streams = answers.map(() => new FakeAnswerStream());
    const runs = streams.map((s, i) => relay.run(request(surface, s, { answerKey: `concurrent-${i}` })));
    await Promise.all(
      streams.map(async (s, i) => {
        await streamAll(s, fragments(answers[i] ?? '', i, 80), 10);
        s.final();
      }),
    );
    const results = await Promise.all(runs);
    expect(surface.violations).toBe(0);
    results.forEach((r, i) => expectComplete(surface, r, answers[i] ?? ''));
  });

  it('serves final edits before interim ones when the budget is tight', async () => {
    const surface = bed.surface({ budget: { edit: { limit: 2, windowMs: 400 } } });
    // Eight answers keep an interim edit waiting at all times: FIFO alone would make a final wait ~1.6 s.
    const busy = Array.from({ length: 8 }, () => new FakeAnswerStream());
    const busyRuns = busy.map((s, i) => relay.run(request(surface, s, { answerKey: `busy-${i}` })));
    const feeding = busy.map(async (s) => {
      for (let i = 0; i < 60; i++) {
        s.push(`word${i} `);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    const stream = new FakeAnswerStream();
    const target = relay.run(request(surface, stream, { answerKey: 'target' }));
    await waitFor(
      () => surface.count('edit') >= 4 && surface.scheduler.pending >= 6,
      "surface.count('edit') >= 4 && surface.scheduler.pending >= 6",
    );
    stream.push('Short answer.');
    const waitingInterims = surface.scheduler.pending;
    const editsBefore = surface.count('edit');
    stream.final();
    const result = await target;
    // The final goes ahead of the interims waiting (FIFO would run all of them first): only edits
    // already granted when it arrived (at most the window's 2) run before it, then the final itself.
    expect(waitingInterims).toBeGreaterThanOrEqual(6);
    expect(surface.count('edit') - editsBefore).toBeLessThanOrEqual(3);
    expectComplete(surface, result, 'Short answer.');
    await Promise.all(feeding);
    busy.forEach((s) => s.final());
    await Promise.all(busyRuns);
  });

  describe('interruption', () => {
    function expectInterrupted(surface: TestSurface, result: RelayResult, partial: string): void {
      expect(result.status).toBe('interrupted');
      expect(result.text).toBe(partial);
      expect(shown(surface, result)).toBe(partial);
      const last = surface.messages.get(result.messages[result.messages.length - 1]?.id ?? '');
      expect(last?.current.notice).toMatch(/interrupted/);
      expect(last?.current.buttons).toEqual([{ label: 'Retry', action: RETRY.action, value: RETRY.value }]);
      for (const ref of result.messages) expect(surface.messages.get(ref.id)?.current.typing ?? false).toBe(false);
    }

    it('keeps the partial text when the stream breaks mid-answer', async () => {
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream));
      stream.push('The first half of ');
      await waitFor(
        () => surface.messagesIn(place)[0]?.current.text === 'The first half of',
        "'The first half of' shown",
        5000,
        surface.changes,
      );
      const err = Object.assign(new Error('socket hang up'), {
        name: 'NetworkError',
        partialText: 'The first half of the',
      });
      stream.fail(err);
      const result = await running;
      expectInterrupted(surface, result, 'The first half of the');
      expect(result.error).toBe(err);
    });

    it('marks a stream that ends without its final object', async () => {
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream));
      stream.push('Partial answer');
      stream.end();
      expectInterrupted(surface, await running, 'Partial answer');
    });

    it('turns the placeholder into the notice when nothing arrived', async () => {
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      stream.fail(Object.assign(new Error('timeout'), { name: 'TimeoutError' }));
      const result = await relay.run(request(surface, stream));
      expectInterrupted(surface, result, '');
      expect(result.messages).toHaveLength(1);
    });

    it('keeps a long partial answer split exactly', async () => {
      const surface = bed.surface({ maxMessageLength: 2000 });
      const stream = new FakeAnswerStream();
      const partial = longAnswer(77, 7000);
      const running = relay.run(request(surface, stream));
      await streamAll(stream, fragments(partial, 77, 200));
      stream.end();
      const result = await running;
      expectInterrupted(surface, result, partial);
      expect(result.messages.length).toBeGreaterThanOrEqual(4);
    });

    it('stops on the request signal', async () => {
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      const controller = new AbortController();
      const running = relay.run(request(surface, stream, { signal: controller.signal }));
      stream.push('Some text ');
      await waitFor(
        () => surface.messagesIn(place)[0]?.current.text === 'Some text',
        "'Some text' shown",
        5000,
        surface.changes,
      );
      controller.abort('the user cancelled');
      const result = await running;
      expectInterrupted(surface, result, 'Some text ');
      expect(surface.messages.get(result.messages[0]?.id ?? '')?.current.notice).toMatch(/the user cancelled/);
    });
  });

  describe('native streaming', () => {
    function nativeSurface(opts: TestSurfaceOptions['native'], extra: TestSurfaceOptions = {}): TestSurface {
      return bed.surface({ native: opts, ...extra });
    }

    it('streams through the native methods when offered', async () => {
      const surface = nativeSurface({ ttlMs: 300_000 });
      const stream = new FakeAnswerStream();
      const answer = longAnswer(5, 1200);
      const running = relay.run(request(surface, stream));
      await streamAll(stream, fragments(answer, 5, 20));
      stream.final();
      const result = await running;
      expectComplete(surface, result, answer);
      expect(surface.count('post')).toBe(0);
      expect(surface.count('edit')).toBe(0);
      expect(surface.count('append')).toBeGreaterThan(0);
      expect(surface.nativeStreams).toHaveLength(1);
      expect(surface.nativeStreams[0]?.finalMessage?.buttons).toEqual([TALK]);
      expect(surface.nativeStreams[0]?.finalMessage?.text).toBe(answer);
    });

    it.each(['throw', 'undefined'] as const)('falls back to post and edit when native streaming %s', async (fail) => {
      const surface = nativeSurface({ ttlMs: 300_000, fail });
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream));
      stream.push('Fallback ');
      stream.push('works.');
      stream.final();
      const result = await running;
      expectComplete(surface, result, 'Fallback works.');
      expect(surface.count('post')).toBe(1);
      expect(surface.nativeStreams).toHaveLength(0);
    });

    it('rotates to a new native message before a stream expires', async () => {
      setup({ minInterimIntervalMs: 20, nativeExpiryMarginMs: 250 });
      const surface = nativeSurface({ ttlMs: 400 });
      const stream = new FakeAnswerStream();
      const answer = longAnswer(11, 1500);
      const running = relay.run(request(surface, stream));
      await streamAll(stream, fragments(answer, 11, 40), 15);
      stream.final();
      const result = await running;
      expectComplete(surface, result, answer);
      expect(surface.nativeStreams.length).toBeGreaterThan(1);
      for (const s of surface.nativeStreams) {
        expect(s.stoppedAt).toBeDefined();
        expect(s.stoppedAt ?? Infinity).toBeLessThan(s.expiresAt);
      }
    });

    it('rotates when the text outgrows the message limit', async () => {
      const surface = nativeSurface({ ttlMs: 300_000 }, { maxMessageLength: 2000 });
      const stream = new FakeAnswerStream();
      const answer = longAnswer(12, 10_500);
      const running = relay.run(request(surface, stream));
      await streamAll(stream, fragments(answer, 12, 150), 5);
      await waitFor(() => surface.nativeStreams.length >= 5, 'surface.nativeStreams.length >= 5');
      stream.final();
      const result = await running;
      expectComplete(surface, result, answer);
      expect(surface.nativeStreams.length).toBe(result.messages.length);
      for (const s of surface.nativeStreams) expect(s.stoppedAt).toBeDefined();
      expect(result.messages.length).toBeGreaterThanOrEqual(6);
    });

    it('marks an interrupted native stream', async () => {
      const surface = nativeSurface({ ttlMs: 300_000 });
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream));
      stream.push('Native partial');
      stream.end();
      const result = await running;
      expect(result.status).toBe('interrupted');
      expect(surface.nativeStreams[0]?.finalMessage).toMatchObject({ text: 'Native partial' });
      expect(surface.nativeStreams[0]?.finalMessage?.notice).toMatch(/interrupted/);
    });
  });

  describe('in-flight tracking and shutdown', () => {
    it('keeps a leased record while streaming and removes it when done', async () => {
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream, { answerKey: 'tracked' }));
      stream.push('Tracked text ');
      await waitFor(async () => {
        const rec = await store.get<{ messages: Array<{ text: string }> }>(inflightKey('tracked'));
        return rec?.messages[0]?.text === 'Tracked text';
      }, '{ const rec = await store.get<{ messages: Array<{ text: string }> }...');
      const rec = await store.get(inflightKey('tracked'));
      expect(rec).toMatchObject({ surface: TEST_SURFACE, owner: 'inst-a', retry: RETRY, place });
      expect((await store.leaseInfo(inflightLease('tracked')))?.owner).toBe('inst-a');
      stream.final();
      await running;
      expect(await store.get(inflightKey('tracked'))).toBeUndefined();
      expect(await store.leaseInfo(inflightLease('tracked'))).toBeUndefined();
    });

    it('renews the lease while an answer streams', async () => {
      setup({ leaseTtlMs: 200, leaseRenewMs: 50 });
      const surface = bed.surface();
      const stream = new FakeAnswerStream();
      const running = relay.run(request(surface, stream, { answerKey: 'renewed' }));
      const first = await (async () => {
        await waitFor(
          async () => (await store.leaseInfo(inflightLease('renewed'))) !== undefined,
          "(await store.leaseInfo(inflightLease('renewed'))) !== undefined",
        );
        return (await store.leaseInfo(inflightLease('renewed')))?.expiresAt ?? 0;
      })();
      await waitFor(
        async () => ((await store.leaseInfo(inflightLease('renewed')))?.expiresAt ?? 0) > first + 100,
        "((await store.leaseInfo(inflightLease('renewed')))?.expiresAt ?? 0)...",
      );
      stream.final('done');
      await running;
    });

    it('shutdown lets quick answers finish and marks the rest', async () => {
      const surface = bed.surface();
      const slow = new FakeAnswerStream();
      const quick = new FakeAnswerStream();
      const slowRun = relay.run(request(surface, slow, { answerKey: 'slow' }));
      const quickRun = relay.run(request(surface, quick, { answerKey: 'quick' }));
      slow.push('Slow partial');
      quick.push('Quick');
      await waitFor(() => surface.count('edit') >= 2, 'both answers edited', 5000, surface.changes);
      const shutdown = relay.shutdown(1500);
      quick.final('Quick answer.');
      await shutdown;
      const [slowResult, quickResult] = await Promise.all([slowRun, quickRun]);
      expectComplete(surface, quickResult, 'Quick answer.');
      expect(slowResult.status).toBe('interrupted');
      expect(shown(surface, slowResult)).toBe('Slow partial');
      const last = surface.messages.get(slowResult.messages[0]?.id ?? '');
      expect(last?.current.notice).toMatch(/interrupted/);
      expect(relay.inFlight).toBe(0);
      expect(await store.keys('inflight:')).toEqual([]);
    });
  });
});
