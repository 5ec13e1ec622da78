/**
 * Relay under load: N concurrent answers of about 1,500 characters, each streamed over about 6 s,
 * relayed into a fake Slack Web API that enforces Slack's tier budgets (chat.update 50/min per
 * workspace, chat.postMessage about 1/s per channel with short bursts) and answers 429 + Retry-After.
 *
 * Every relay gets a fresh fake Slack (fresh budgets) and the same answers, threads and timing:
 * answers start evenly over `arrivalWindowMs` (so all N stream at once near its end), round-robin
 * over `channels` channels, each in its own thread under a user's message. Figures come from the
 * fake: its 429 count, its calls, and its message store (what a user would see).
 */
import { setMaxListeners } from 'node:events';
import pino from 'pino';
import type { Place } from '../src/core/surface';
import { SlackPort } from '../src/surfaces/slack/port';
import { createWebClient } from '../src/surfaces/slack/web';
import { SqliteStore } from '../src/state/sqlite-store';
import type { StateStore } from '../src/state/store';
import { FakeSlack, type SlackCall } from '../fakes/fake-slack';
import { ChatSdkRelay } from './relays/chat-sdk';
import { AbortedError, type BenchRelay } from './relays/common';
import { FixedIntervalRelay } from './relays/fixed-interval';
import { NaiveRelay } from './relays/naive';
import { OurRelay } from './relays/ours';
import { RawSlack } from './relays/raw-slack';
import { rng, syntheticAnswer, TimedAnswerStream } from './relays/synthetic';

export type RelayKind = 'ours-update' | 'ours-native' | 'naive' | 'fixed-interval' | 'chat-sdk';
export const RELAY_KINDS: readonly RelayKind[] = ['ours-update', 'ours-native', 'naive', 'fixed-interval', 'chat-sdk'];
/** The relays that stream natively when Slack offers it: the fake offers it to them by default. */
const NATIVE_KINDS: readonly RelayKind[] = ['ours-native', 'chat-sdk'];

export interface RelayBenchOptions {
  /** Concurrent answers per scenario. */
  concurrency?: number[];
  relays?: readonly RelayKind[];
  channels?: number;
  answerChars?: number;
  streamMs?: number;
  arrivalWindowMs?: number;
  /** After the last stream ends, how long relays may still work before the run stops them. */
  graceMs?: number;
  /**
   * Answers of different lengths, none known in advance: each streams for a third to five sixths of
   * `streamMs` (its characters in proportion), seeded, so the relay's 6-second guess is wrong for
   * nearly all of them, as in a real surge.
   */
  unknownLengths?: boolean;
  /** What the fake answers chat.startStream (default: on for ours-native and chat-sdk, unknown_method otherwise). */
  streaming?: 'on' | 'unknown_method';
  /**
   * Slack answers no chat.startStream during the run's first this many ms (a slow Slack while a
   * surge arrives): starts made meanwhile are all in flight at once.
   */
  slowStartsMs?: number;
}

export interface RelayFigures {
  relay: RelayKind;
  name: string;
  concurrent: number;
  channels: number;
  rateLimited: number;
  exact: number;
  exactPct: number;
  webApiCalls: number;
  callsPerAnswer: number;
  /** Texts a user saw per answer (post, each edit or append), final included. */
  visibleUpdatesPerAnswer: number;
  /** Median over answers of the distinct partial texts a user saw before the final (interim updates). */
  interimPerAnswerP50: number;
  /** The fewest partial texts an answer showed. */
  interimPerAnswerMin: number;
  /** Answers whose first message was a native stream (chat.startStream answered ok). */
  nativeAnswers: number;
  /** Median and fewest partial texts of the native answers, and of the others (null: none). */
  interimNative: { p50: number; min: number } | null;
  interimOther: { p50: number; min: number } | null;
  /** Successful chat.* calls by method, over all answers. */
  callsByMethod: Record<string, number>;
  /** chat.startStream calls Slack refused (e.g. unknown_method). */
  startRefusals: number;
  firstVisibleP50Ms: number | null;
  firstVisibleP95Ms: number | null;
  /**
   * First fragment to the first partial text visible (ms), over the answers that showed one (null
   * when none did).
   */
  firstPartialP50Ms: number | null;
  firstPartialP95Ms: number | null;
  /** null when more answers than the percentile allows never showed their exact final (see unfinished). */
  finalLagP50Ms: number | null;
  finalLagP95Ms: number | null;
  /** The slowest answer's final lag (null when one never showed its exact final). */
  finalLagMaxMs: number | null;
  /** Answers whose exact final text was not visible when the run stopped them. */
  unfinished: number;
  /** Answers whose relay gave up before the run stopped it (e.g. the final edit refused after its retries). */
  gaveUp: number;
  runMs: number;
}

const DEFAULTS = {
  concurrency: [30, 50],
  relays: RELAY_KINDS,
  channels: 10,
  answerChars: 1_500,
  streamMs: 6_000,
  arrivalWindowMs: 6_000,
  graceMs: 15_000,
};

/** Nearest-rank percentile; Infinity entries (never finished) count as larger than any figure. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return v === undefined || !Number.isFinite(v) ? null : Math.round(v);
}

interface Tracked {
  place: Place;
  answer: string;
  commandAt: number;
  stream: TimedAnswerStream;
  firstVisibleAt?: number;
  /** When the thread first showed some of the answer's text, not all of it. */
  firstPartialAt?: number;
  exactSince?: number;
}

/** What a user sees in a thread: the bot's replies' texts, in order, joined. */
function threadText(fake: FakeSlack, place: Place): string {
  return fake
    .replies(place.channel, place.thread ?? '')
    .filter((m) => m.bot_id !== undefined)
    .map((m) => m.text)
    .join('');
}

async function makeRelay(
  kind: RelayKind,
  port: SlackPort,
  raw: RawSlack,
  store: StateStore,
  fake: FakeSlack,
): Promise<BenchRelay> {
  switch (kind) {
    case 'ours-update':
      return new OurRelay(port, store, 'ours (chat.update)');
    case 'ours-native':
      return new OurRelay(port, store, 'ours (native streaming)');
    case 'naive':
      return new NaiveRelay(raw);
    case 'fixed-interval':
      return new FixedIntervalRelay(raw, 1_000);
    case 'chat-sdk':
      return ChatSdkRelay.create(fake);
  }
}

export async function runRelayScenario(
  kind: RelayKind,
  concurrent: number,
  options: RelayBenchOptions = {},
): Promise<RelayFigures> {
  const o = { ...DEFAULTS, ...options };
  const fake = new FakeSlack({
    streaming: options.streaming ?? (NATIVE_KINDS.includes(kind) ? 'on' : 'unknown_method'),
  });
  await fake.start();
  const log = pino({ level: 'silent' });
  // One store per instance, as in the app: the port paces posts with it, our scheduler spends edits.
  const store = new SqliteStore(':memory:');
  const port = new SlackPort({
    client: createWebClient(fake.botToken, fake.apiUrl, log),
    store,
    log,
    botToken: fake.botToken,
    team: () => fake.team,
  });
  // Our relay goes through the Slack surface (its gateway); the peers straight to the Web API.
  const relay = await makeRelay(
    kind,
    port,
    new RawSlack(createWebClient(fake.botToken, fake.apiUrl, log)),
    store,
    fake,
  );
  if (kind === 'ours-update') {
    // The port learns once that this workspace has no native streaming, as a running bridge has long
    // before a busy moment; the warm-up's calls are not counted.
    fake.messages.push({
      channel: 'CWARMUP',
      ts: '1700000000.999999',
      text: 'warm-up',
      blocks: [],
      user: 'U0',
      history: [],
    });
    const warm = await port.startNativeStream(
      { surface: 'slack', workspace: fake.team, channel: 'CWARMUP', thread: '1700000000.999999' },
      { text: '' },
    );
    if (warm) throw new Error('the fake Slack was expected to refuse native streaming');
  }
  if (o.slowStartsMs !== undefined) {
    const gate = fake.hold('chat.startStream');
    setTimeout(gate.release, o.slowStartsMs).unref();
  }
  const callsBefore = fake.calls.length;
  const limitedBefore = fake.rateLimited;

  // Each answer's thread: a user's message in one of the channels (users' messages cost the bot nothing).
  const tracked: Tracked[] = [];
  const byThread = new Map<string, Tracked>();
  const channels = Math.max(1, Math.min(o.channels, concurrent));
  for (let i = 0; i < concurrent; i++) {
    const channel = `C${String(i % channels).padStart(4, '0')}`;
    const ts = `1700000000.${String(i + 1).padStart(6, '0')}`;
    fake.messages.push({ channel, ts, text: `question ${i}`, blocks: [], user: `U${i}`, history: [] });
    const place: Place = { surface: 'slack', workspace: fake.team, channel, thread: ts };
    const share = o.unknownLengths ? 1 / 3 + rng(7000 + i)() / 2 : 1;
    const answer = syntheticAnswer(1000 + i, Math.round(o.answerChars * share));
    const stream = new TimedAnswerStream(answer, 1000 + i, Math.round(o.streamMs * share));
    const t: Tracked = { place, answer, commandAt: 0, stream };
    tracked.push(t);
    byThread.set(`${channel}:${ts}`, t);
  }

  // Observe the fake as it records each call (after it has applied it to its message store).
  const calls = fake.calls;
  const push = calls.push.bind(calls);
  const observe = (call: SlackCall): void => {
    if (call.status !== 200 || call.response.ok !== true) return;
    const channel = String(call.args.channel ?? '');
    let thread = typeof call.args.thread_ts === 'string' ? call.args.thread_ts : undefined;
    if (!thread && typeof call.args.ts === 'string') thread = fake.message(channel, call.args.ts)?.thread_ts;
    const t = thread ? byThread.get(`${channel}:${thread}`) : undefined;
    if (!t) return;
    if ((call.method === 'chat.postMessage' || call.method === 'chat.startStream') && t.firstVisibleAt === undefined) {
      t.firstVisibleAt = call.at;
    }
    const shown = threadText(fake, t.place);
    const exact = shown === t.answer;
    if (!exact && shown.length > 0 && t.firstPartialAt === undefined) t.firstPartialAt = call.at;
    if (exact && t.exactSince === undefined) t.exactSince = call.at;
    if (!exact) t.exactSince = undefined;
  };
  calls.push = (...items: SlackCall[]): number => {
    const n = push(...items);
    for (const c of items) observe(c);
    return n;
  };

  const stop = new AbortController();
  // Every answer's relay listens on this one signal.
  setMaxListeners(0, stop.signal);
  const started = Date.now();
  const runs: Array<Promise<void>> = [];
  const gaveUp: unknown[] = [];
  for (const [i, t] of tracked.entries()) {
    const startAt = started + (i * o.arrivalWindowMs) / concurrent;
    runs.push(
      (async () => {
        await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
        t.commandAt = Date.now();
        t.stream.start();
        await relay.relay({ place: t.place, events: t.stream, answerKey: `bench-${kind}-${i}`, signal: stop.signal });
      })().catch((err: unknown) => {
        // A relay that gave up (e.g. its final edit refused after its retries) is a result, not a bench failure.
        if (!(err instanceof AbortedError) && !stop.signal.aborted) gaveUp.push(err);
      }),
    );
  }
  // Runs end when every relay is done, or grace after the last stream ended, whichever comes first.
  const lastEnd = started + o.arrivalWindowMs + o.streamMs;
  const deadline = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, lastEnd + o.graceMs - Date.now()));
    void Promise.allSettled(runs).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  await deadline;
  stop.abort();
  const settled = await Promise.allSettled(runs);
  const runMs = Date.now() - started;
  for (const t of tracked) t.stream.stop();
  await relay.close();
  port.close();
  await fake.close();
  await store.close();
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  if (process.env.BENCH_LOG && gaveUp.length > 0) console.error(kind, 'gave up:', gaveUp.slice(0, 3));

  const exact = tracked.filter((t) => threadText(fake, t.place) === t.answer);
  const firstVisible = tracked.map((t) => (t.firstVisibleAt === undefined ? Infinity : t.firstVisibleAt - t.commandAt));
  const firstPartial = tracked.flatMap((t) =>
    t.firstPartialAt === undefined || t.stream.firstAt === undefined
      ? []
      : [Math.max(0, t.firstPartialAt - t.stream.firstAt)],
  );
  const finalLag = tracked.map((t) =>
    t.exactSince === undefined || t.stream.endedAt === undefined || threadText(fake, t.place) !== t.answer
      ? Infinity
      : Math.max(0, t.exactSince - t.stream.endedAt),
  );
  const chatCalls = fake.calls.slice(callsBefore).filter((c) => c.method.startsWith('chat.'));
  // Distinct partial texts of an answer: every text its messages showed that was neither empty nor
  // the message's final text.
  const partials = tracked.map((t) =>
    fake
      .replies(t.place.channel, t.place.thread ?? '')
      .filter((m) => m.bot_id !== undefined)
      .reduce((n, m) => n + new Set(m.history.filter((h) => h !== '' && h !== m.text)).size, 0),
  );
  const updates = tracked.reduce(
    (sum, t) =>
      sum + fake.replies(t.place.channel, t.place.thread ?? '').reduce((n, m) => n + new Set(m.history).size, 0),
    0,
  );
  const r1 = (x: number): number => Math.round(x * 10) / 10;
  return {
    relay: kind,
    name: relay.name,
    concurrent,
    channels,
    rateLimited: fake.rateLimited - limitedBefore,
    exact: exact.length,
    exactPct: r1((exact.length / concurrent) * 100),
    webApiCalls: chatCalls.length,
    callsPerAnswer: r1(chatCalls.length / concurrent),
    visibleUpdatesPerAnswer: r1(updates / concurrent),
    interimPerAnswerP50: percentile(partials, 50) ?? 0,
    ...streamFigures(chatCalls, tracked, partials),
    firstVisibleP50Ms: percentile(firstVisible, 50),
    firstVisibleP95Ms: percentile(firstVisible, 95),
    firstPartialP50Ms: percentile(firstPartial, 50),
    firstPartialP95Ms: percentile(firstPartial, 95),
    finalLagP50Ms: percentile(finalLag, 50),
    finalLagP95Ms: percentile(finalLag, 95),
    finalLagMaxMs: percentile(finalLag, 100),
    unfinished: finalLag.filter((x) => !Number.isFinite(x)).length,
    gaveUp: gaveUp.length,
    runMs,
  };
}

/** The native / other split of the partial texts, and the calls by method (see RelayFigures). */
function streamFigures(
  chatCalls: SlackCall[],
  tracked: Tracked[],
  partials: number[],
): Pick<
  RelayFigures,
  'interimPerAnswerMin' | 'nativeAnswers' | 'interimNative' | 'interimOther' | 'callsByMethod' | 'startRefusals'
> {
  const nativeThreads = new Set(
    chatCalls
      .filter((c) => c.method === 'chat.startStream' && c.response.ok === true)
      .map((c) => `${String(c.args.channel)}:${String(c.args.thread_ts)}`),
  );
  const isNative = tracked.map((t) => nativeThreads.has(`${t.place.channel}:${t.place.thread ?? ''}`));
  const spread = (xs: number[]): { p50: number; min: number } | null =>
    xs.length === 0 ? null : { p50: percentile(xs, 50) ?? 0, min: Math.min(...xs) };
  const callsByMethod: Record<string, number> = {};
  for (const c of chatCalls) {
    if (c.response.ok === true) callsByMethod[c.method] = (callsByMethod[c.method] ?? 0) + 1;
  }
  return {
    interimPerAnswerMin: partials.length === 0 ? 0 : Math.min(...partials),
    nativeAnswers: nativeThreads.size,
    interimNative: spread(partials.filter((_, i) => isNative[i])),
    interimOther: spread(partials.filter((_, i) => !isNative[i])),
    callsByMethod,
    startRefusals: chatCalls.filter((c) => c.method === 'chat.startStream' && c.response.ok !== true).length,
  };
}

/** A lone answer of about 3 s (half the size and time of the loaded ones), alone in its workspace. */
export function loneOptions(o: RelayBenchOptions): RelayBenchOptions {
  const answerChars = Math.round((o.answerChars ?? DEFAULTS.answerChars) / 2);
  const streamMs = Math.round((o.streamMs ?? DEFAULTS.streamMs) / 2);
  return { ...o, answerChars, streamMs, arrivalWindowMs: 0 };
}

/** Every relay at every concurrency, one after another (so they never share the CPU). */
export async function runRelayBench(
  options: RelayBenchOptions = {},
  onResult?: (f: RelayFigures) => void,
): Promise<RelayFigures[]> {
  const o = { ...DEFAULTS, ...options };
  const out: RelayFigures[] = [];
  for (const n of o.concurrency) {
    for (const kind of o.relays) {
      const f = await runRelayScenario(kind, n, n === 1 ? loneOptions(options) : options);
      onResult?.(f);
      out.push(f);
    }
  }
  return out;
}
