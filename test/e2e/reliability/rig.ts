/**
 * The reliability tests' one rig: the local chatbot service and a fake Slack, started once per file
 * through `useStarted`, and bridge processes (`node dist/main.js`) on a given store, all killed at
 * the end. The steps every file repeats (ask and find the root, write in a thread, wait for an answer
 * or a log line) live here, each asserting with `expect` what it waited for.
 */
import { startFakeSlack, type FakeMessage, type FakeSlack, type FakeSlackOptions } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import {
  BridgeProcess,
  SIGNING_SECRET,
  answerStarts,
  bridgeEnv,
  flushRedisDb,
  nextTs,
  shownText,
  startSharedService,
  type SharedService,
} from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';

/** A bot message still being written: the typing mark, or the placeholder. */
export const typing = (m: FakeMessage): boolean => JSON.stringify(m.blocks).includes('▍') || m.text === 'Thinking…';

export interface RigOptions {
  /** Milliseconds between the service's answer fragments (how long an answer streams). */
  fragmentDelayMs: number;
  slack?: FakeSlackOptions;
  /** A Redis database to empty before the file's tests (each file has its own). */
  flushRedis?: string;
}

export interface StartOptions {
  stateUrl: string;
  /** Where the bridge finds the chatbot service, when not the service itself (a proxy in front). */
  serviceUrl?: string;
  extra?: Record<string, string>;
}

export class Rig {
  readonly started: BridgeProcess[] = [];

  constructor(
    readonly service: SharedService,
    readonly fake: FakeSlack,
  ) {}

  /** Starts a bridge process named `id` (also its instance id); killed when the file ends. */
  async start(id: string, opts: StartOptions): Promise<BridgeProcess> {
    const env = bridgeEnv({
      serviceUrl: opts.serviceUrl ?? this.service.url,
      service: this.service.service,
      fake: this.fake,
      stateUrl: opts.stateUrl,
      instanceId: id,
      ...(opts.extra ? { extra: opts.extra } : {}),
    });
    const p = await BridgeProcess.start(id, env);
    this.started.push(p);
    return p;
  }

  driverOf(p: BridgeProcess): SlackDriver {
    return new SlackDriver(p.eventsUrl, SIGNING_SECRET, this.fake.team);
  }

  botReplies(channel: string, thread: string): FakeMessage[] {
    return this.fake.replies(channel, thread).filter((m) => m.user === this.fake.botUserId);
  }

  /** `/ask question` through `via` in `channel`: asserts Slack got its 200 and returns the conversation root. */
  async ask(
    via: BridgeProcess | SlackDriver,
    question: string,
    channel: string,
    user = 'U0USER1',
  ): Promise<FakeMessage> {
    const driver = via instanceof SlackDriver ? via : this.driverOf(via);
    expect((await driver.command('/ask', question, { user, channel })).status).toBe(200);
    const root = await waitFor(
      () => this.fake.channelMessages(channel).find((m) => shownText(m).includes(`> ${question}`)),
      'the /ask root',
    );
    expect(root.user).toBe(this.fake.botUserId);
    return root;
  }

  /** A user's message in the thread `thread` of `channel`, as Slack delivers it; returns the event. */
  async say(
    via: BridgeProcess | SlackDriver,
    where: { channel: string; thread: string; user?: string },
    text: string,
  ): Promise<Record<string, string>> {
    const driver = via instanceof SlackDriver ? via : this.driverOf(via);
    const event = {
      type: 'message',
      channel: where.channel,
      channel_type: 'channel',
      user: where.user ?? 'U0USER1',
      text,
      ts: nextTs(),
      thread_ts: where.thread,
    };
    expect((await driver.event(event)).status).toBe(200);
    return event;
  }

  /** Waits until part of the answer shows in the thread while it still streams (chat.update relay); asserts and returns it. */
  async expectMidStream(channel: string, thread: string): Promise<FakeMessage> {
    const part = await waitFor(
      () => this.botReplies(channel, thread).find((m) => m.text.length > 0 && typing(m)),
      'part of the answer, still streaming',
      30_000,
    );
    expect(typing(part)).toBe(true);
    return part;
  }

  /** A user's mention of the bot in `channel` (a new conversation); asserts the 200, returns its ts. */
  async mention(
    via: BridgeProcess | SlackDriver,
    channel: string,
    question: string,
    user = 'U0USER1',
  ): Promise<{ ts: string; question: string; eventId: string; event: Record<string, string> }> {
    const driver = via instanceof SlackDriver ? via : this.driverOf(via);
    const ts = nextTs();
    const event = { type: 'app_mention', channel, user, text: `<@${this.fake.botUserId}> ${question}`, ts };
    const res = await driver.event(event);
    expect(res.status).toBe(200);
    return { ts, question, eventId: res.eventId, event };
  }

  /** Where in the thread's bot replies the service's answer to `question` starts, once shown in full. */
  answerAt(channel: string, thread: string, question: string): number | undefined {
    const stored = this.service.storedAnswers(question).at(-1);
    return stored === undefined ? undefined : answerStarts(this.botReplies(channel, thread), stored)[0];
  }

  /** Waits until the thread shows the answer to `question` in full; asserts it and returns where it starts. */
  async expectAnswered(channel: string, thread: string, question: string, timeoutMs = 30_000): Promise<number> {
    const at = await waitFor(() => this.answerAt(channel, thread, question), `the answer to "${question}"`, timeoutMs);
    const stored = this.service.storedAnswers(question).at(-1)!;
    expect(answerStarts(this.botReplies(channel, thread), stored)).toContain(at);
    return at;
  }

  /** Waits until `p` logged a line with message `msg` (and the given fields); asserts and returns it. */
  async expectLine(
    p: BridgeProcess,
    msg: string,
    timeoutMs = 15_000,
    fields: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const matches = (l: Record<string, unknown>) =>
      l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v);
    const line = await waitFor(() => p.lines.find(matches), `"${msg}" in ${p.name}'s log`, timeoutMs);
    expect(line).toMatchObject({ msg, ...fields });
    return line;
  }

  async close(): Promise<void> {
    await Promise.all(this.started.map((p) => p.kill()));
    await this.fake.close();
    await this.service.close();
  }
}

/** The file's rig, started before its tests and closed after them. */
export function useRig(opts: RigOptions): Rig {
  return useStarted(async () => {
    if (opts.flushRedis) await flushRedisDb(opts.flushRedis);
    const service = await startSharedService(opts.fragmentDelayMs);
    const fake = await startFakeSlack({ users: { U0USER1: 'Ada Lovelace' }, ...opts.slack });
    return new Rig(service, fake);
  }, 60_000);
}

/**
 * Waits until `read()` matches `re` (a ticket's first line, a thread's text...); asserts it and
 * returns what it read.
 */
export async function expectShows(read: () => string, re: RegExp, what: string, timeoutMs?: number): Promise<string> {
  const shown = await waitFor(() => (re.test(read()) ? read() : undefined), what, timeoutMs);
  expect(shown).toMatch(re);
  return shown;
}
