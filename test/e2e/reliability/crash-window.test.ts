/**
 * The crash window between a queue item marked "started" and the relay's in-flight record: the
 * bridge is SIGKILLed exactly there (a test hook pauses it at that point), restarted, and within
 * 60 s the thread ends with the answer (or a marked message with Retry), with no placeholder left
 * hanging. Before this was fixed, the next worker skipped the started item and nobody recovered it.
 */
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../../fakes/fake-slack';
import { tempDir } from '../../support/app-env';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import {
  BridgeProcess,
  SIGNING_SECRET,
  answerStart,
  bridgeEnv,
  buttonsOf,
  shownText,
  startSharedService,
  type SharedService,
} from '../../support/bridge-process';

const WITHIN_MS = 60_000;
const HOOK_LINE = 'test hook: paused between started and the in-flight record';

describe('reliability: killed between "started" and the in-flight record', () => {
  let service: SharedService;
  let fake: FakeSlack;
  const tmp = tempDir('crash-window-');
  const started: BridgeProcess[] = [];
  const env = (id: string, extra: Record<string, string> = {}) =>
    bridgeEnv({
      serviceUrl: service.url,
      service: service.service,
      fake,
      stateUrl: `sqlite:${tmp.dir}/bridge.db`,
      instanceId: id,
      extra,
    });
  const start = async (id: string, extra?: Record<string, string>): Promise<BridgeProcess> => {
    const p = await BridgeProcess.start(id, env(id, extra));
    started.push(p);
    return p;
  };
  const botReplies = (channel: string, thread: string): FakeMessage[] =>
    fake.replies(channel, thread).filter((m) => m.user === fake.botUserId);
  const typing = (m: FakeMessage): boolean =>
    m.streaming === true || JSON.stringify(m.blocks).includes('▍') || m.text === '' || m.text === 'Thinking…';

  beforeAll(async () => {
    service = await startSharedService(2);
    fake = await startFakeSlack({ users: { U0USER1: 'Ada Lovelace' } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(started.map((p) => p.kill()));
    await fake?.close();
    await service?.close();
    tmp.remove();
  });

  test.each([['native streaming'], ['chat.update (placeholder first)']] as const)(
    'SIGKILL in the window, restart: the thread is answered or marked with Retry within 60 s (%s)',
    async (label) => {
      const channel = label.startsWith('native') ? 'C0CRASHN' : 'C0CRASHU';
      fake.setStreaming(label.startsWith('native') ? 'on' : 'unknown_method');
      const question = `Homes for sale in Austin? (${label})`;
      const victim = await start(`crash-${channel}`, { BRIDGE_TEST_PAUSE_BEFORE_RELAY: '1' });
      const driver = new SlackDriver(victim.eventsUrl, SIGNING_SECRET, fake.team);
      expect((await driver.command('/ask', question, { user: 'U0USER1', channel })).status).toBe(200);
      const root = await waitFor(
        () => fake.channelMessages(channel).find((m) => shownText(m).includes(`> ${question}`)),
        'the /ask root',
      );
      await waitFor(() => victim.lines.some((l) => l.msg === HOOK_LINE), 'the bridge paused in the window', 20_000);
      victim.signal('SIGKILL');
      const killedAt = (await victim.waitExit(5000)).at;

      await start(`crash-${channel}`);
      const outcome = await waitFor(
        () => {
          const replies = botReplies(channel, root.ts);
          if (replies.length === 0 || replies.some(typing)) return undefined;
          const stored = service.storedAnswers(question).at(-1);
          if (stored !== undefined && answerStart(replies, stored) !== undefined) return 'answered';
          const last = replies.at(-1)!;
          if (/interrupted/i.test(shownText(last)) && buttonsOf(last).some((b) => b.text === 'Retry')) return 'marked';
          return undefined;
        },
        'the thread answered or marked with Retry',
        // A bound on the wait (WITHIN_MS from the kill), not a measurement.
        Math.max(1, killedAt + WITHIN_MS - Date.now()),
      );
      expect(['answered', 'marked']).toContain(outcome);
      // No placeholder or typing mark is left anywhere in the thread.
      expect(botReplies(channel, root.ts).filter(typing)).toEqual([]);
    },
    150_000,
  );
});
