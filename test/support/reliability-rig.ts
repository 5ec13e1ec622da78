/**
 * What every reliability test sets up the same way: one local chatbot service, one fake Slack and
 * the bridge processes started against them on one state store (stopped, with the rest, by
 * `close`). Used through `useStarted(() => startRig({...}))`, so no file hand-rolls its own
 * beforeAll/afterAll. Also the steps they share: /ask and wait for the root, say something in a
 * thread, wait for an answer shown in full (asserting it shows once).
 */
import { startFakeSlack, type FakeMessage, type FakeSlack, type FakeSlackOptions } from '../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../fakes/slack-requests';
import {
  BridgeProcess,
  SIGNING_SECRET,
  answerStart,
  answerStarts,
  bridgeEnv,
  flushRedisDb,
  nextTs,
  shownText,
  startSharedService,
  type SharedService,
} from './bridge-process';

export interface RigOptions {
  /** The bridges' STATE_URL. */
  stateUrl: string;
  /** The service's delay between answer fragments (long answers stream for about 375 of them). */
  fragmentDelayMs: number;
  slack?: FakeSlackOptions;
  /** Empty this Redis database before starting (and the store's own, shared, tests left behind). */
  flush?: string;
  /** Extra environment for every bridge this rig starts. */
  extra?: Record<string, string>;
}

export interface Rig {
  readonly service: SharedService;
  readonly fake: FakeSlack;
  /** Every bridge started through `start`, killed by `close`. */
  readonly started: BridgeProcess[];
  start(id: string, extra?: Record<string, string>): Promise<BridgeProcess>;
  driverOf(p: BridgeProcess): SlackDriver;
  botReplies(channel: string, thread: string): FakeMessage[];
  close(): Promise<void>;
}

export async function startRig(opts: RigOptions): Promise<Rig> {
  if (opts.flush) await flushRedisDb(opts.flush);
  const service = await startSharedService(opts.fragmentDelayMs);
  const fake = await startFakeSlack({ users: { U0USER1: 'Ada Lovelace' }, ...opts.slack });
  const started: BridgeProcess[] = [];
  return {
    service,
    fake,
    started,
    async start(id, extra = {}) {
      const env = bridgeEnv({
        serviceUrl: service.url,
        service: service.service,
        fake,
        stateUrl: opts.stateUrl,
        instanceId: id,
        extra: { ...opts.extra, ...extra },
      });
      const p = await BridgeProcess.start(id, env);
      started.push(p);
      return p;
    },
    driverOf: (p) => new SlackDriver(p.eventsUrl, SIGNING_SECRET, fake.team),
    botReplies: (channel, thread) => fake.replies(channel, thread).filter((m) => m.user === fake.botUserId),
    async close() {
      await Promise.all(started.map((p) => p.kill()));
      await fake.close();
      await service.close();
    },
  };
}

/** A message still being written: the typing mark, or the placeholder. */
export const typing = (m: FakeMessage): boolean => JSON.stringify(m.blocks).includes('▍') || m.text === 'Thinking…';

/** `/ask question` in `channel` through `driver`, acknowledged; resolves with the conversation's root. */
export async function askRoot(
  rig: Rig,
  driver: SlackDriver,
  question: string,
  channel: string,
  user = 'U0USER1',
): Promise<FakeMessage> {
  const res = await driver.command('/ask', question, { user, channel });
  expect(res.status).toBe(200);
  const root = await waitFor(
    () => rig.fake.channelMessages(channel).find((m) => shownText(m).includes(`> ${question}`)),
    'the /ask root',
  );
  expect(root.user).toBe(rig.fake.botUserId);
  return root;
}

/** A user's message in a thread, as Slack sends it; resolves with Slack's status and event id. */
export function sayInThread(
  driver: SlackDriver,
  place: { channel: string; thread: string },
  text: string,
  user = 'U0USER1',
): ReturnType<SlackDriver['event']> {
  return driver.event({
    type: 'message',
    channel: place.channel,
    channel_type: 'channel',
    user,
    text,
    ts: nextTs(),
    thread_ts: place.thread,
  });
}

/** Where in the thread the last stored answer to `question` starts, once shown in full. */
export function answerIndex(rig: Rig, channel: string, thread: string, question: string): number | undefined {
  const stored = rig.service.storedAnswers(question).at(-1);
  return stored === undefined ? undefined : answerStart(rig.botReplies(channel, thread), stored);
}

/**
 * Waits until the last stored answer to `question` shows in full in the thread, and asserts it
 * shows there once; resolves with where it starts among the bot's replies.
 */
export async function expectAnswered(
  rig: Rig,
  place: { channel: string; thread: string },
  question: string,
  what: string,
  timeoutMs = 30_000,
): Promise<number> {
  const at = await waitFor(() => answerIndex(rig, place.channel, place.thread, question), what, timeoutMs);
  const stored = rig.service.storedAnswers(question).at(-1)!;
  expect(answerStarts(rig.botReplies(place.channel, place.thread), stored)).toEqual([at]);
  return at;
}

/**
 * Waits for `p` to log `hookLine` (a test hook pausing it at a chosen point), then SIGKILLs it
 * there; resolves with when it exited.
 */
export async function killWhenPaused(p: BridgeProcess, hookLine: string, what: string): Promise<number> {
  const paused = await waitFor(() => p.lines.find((l) => l.msg === hookLine), what, 20_000);
  expect(paused.msg).toBe(hookLine);
  p.signal('SIGKILL');
  const exit = await p.waitExit(5000);
  expect(exit.signal).toBe('SIGKILL');
  return exit.at;
}
