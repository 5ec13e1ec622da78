/**
 * SIGTERM: the process finishes or marks its in-flight answers and exits within 10 s (the contract's
 * bound; the Procfile runs node directly so the signal reaches it). The test stops it the way a
 * supervisor does: SIGTERM, then SIGKILL once the grace period is over; a process that needed the
 * SIGKILL shows in its exit (and leaves its answer unmarked), so the outcome is what is asserted.
 */
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import {
  BridgeProcess,
  type ExitInfo,
  SIGNING_SECRET,
  bridgeEnv,
  buttonsOf,
  flushRedisDb,
  shownText,
  startSharedService,
  type SharedService,
} from '../../support/bridge-process';

const STATE_URL = 'redis://127.0.0.1:6379/14';
const LONG_QUESTION = 'Give me the long answer: all listings please';
const GRACE_MS = 10_000;

/** SIGTERM, and SIGKILL when the grace period is over, as a supervisor does; resolves with the exit. */
async function terminate(bridge: BridgeProcess): Promise<ExitInfo> {
  bridge.signal('SIGTERM');
  const graceOver = setTimeout(() => bridge.signal('SIGKILL'), GRACE_MS);
  try {
    return await bridge.waitExit(GRACE_MS + 5000);
  } finally {
    clearTimeout(graceOver);
  }
}

describe('reliability: SIGTERM', () => {
  let service: SharedService;
  let fake: FakeSlack;
  let bridge: BridgeProcess | undefined;

  beforeAll(async () => {
    await flushRedisDb(STATE_URL);
    // About 375 fragments 40 ms apart: the answer would stream for about 15 s, longer than the bound.
    service = await startSharedService(40);
    fake = await startFakeSlack({ streaming: 'unknown_method', users: { U0USER1: 'Ada Lovelace' } });
  });

  afterAll(async () => {
    await bridge?.kill();
    await fake?.close();
    await service?.close();
  });

  const botReplies = (channel: string, thread: string): FakeMessage[] =>
    fake.replies(channel, thread).filter((m) => m.user === fake.botUserId);
  const typing = (m: FakeMessage): boolean => JSON.stringify(m.blocks).includes('▍') || m.text === 'Thinking…';

  test('mid-answer: exits 0 by itself within the 10 s grace, the answer marked interrupted with Retry (no placeholder left)', async () => {
    bridge = await BridgeProcess.start(
      'sigterm',
      bridgeEnv({
        serviceUrl: service.url,
        service: service.service,
        fake,
        stateUrl: STATE_URL,
        instanceId: 'sigterm-a',
      }),
    );
    const driver = new SlackDriver(bridge.eventsUrl, SIGNING_SECRET, fake.team);
    await driver.command('/ask', LONG_QUESTION, { user: 'U0USER1', channel: 'C0TERM' });
    const root = await waitFor(
      () => fake.channelMessages('C0TERM').find((m) => m.text.includes(`> ${LONG_QUESTION}`)),
      'the /ask root',
    );
    await waitFor(
      () => botReplies('C0TERM', root.ts).some((m) => m.text.length > 0 && typing(m)),
      'part of the answer, still streaming',
      30_000,
    );

    const exit = await terminate(bridge);
    expect(exit).toMatchObject({ signal: null, code: 0 });

    // Finished or marked before it went: nothing is still typing, and an unfinished answer says so.
    const replies = botReplies('C0TERM', root.ts);
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.some(typing)).toBe(false);
    const last = replies.at(-1)!;
    const complete =
      service.storedAnswers(LONG_QUESTION).length > 0 && buttonsOf(last).some((b) => b.text === 'Talk to a human');
    if (!complete) {
      expect(shownText(last)).toMatch(/interrupted/i);
      expect(buttonsOf(last).some((b) => b.text === 'Retry')).toBe(true);
      expect(last.text.length).toBeGreaterThan(0);
    }
    expect(bridge.lines.some((l) => l.msg === 'stopping' && l.signal === 'SIGTERM')).toBe(true);
  }, 60_000);

  test('idle: exits 0 by itself within the 10 s grace', async () => {
    bridge = await BridgeProcess.start(
      'sigterm-idle',
      bridgeEnv({
        serviceUrl: service.url,
        service: service.service,
        fake,
        stateUrl: STATE_URL,
        instanceId: 'sigterm-b',
      }),
    );
    const exit = await terminate(bridge);
    expect(exit).toMatchObject({ signal: null, code: 0 });
  }, 30_000);
});
