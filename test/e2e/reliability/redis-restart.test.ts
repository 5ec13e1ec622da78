/**
 * Redis restarting under a running bridge: it reconnects and nothing is lost. A redis-server of this
 * test's own (another port, its own data dir) is killed and started again, so the shared server on
 * 6379 that other tests use is never touched.
 */
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import {
  BridgeProcess,
  OwnRedis,
  SIGNING_SECRET,
  answerStart,
  bridgeEnv,
  freePort,
  nextTs,
  startSharedService,
  type SharedService,
} from '../../support/bridge-process';

describe('reliability: Redis restarting', () => {
  let service: SharedService;
  let fake: FakeSlack;
  let redis: OwnRedis;
  let bridge: BridgeProcess;
  let driver: SlackDriver;

  beforeAll(async () => {
    redis = new OwnRedis(await freePort());
    await redis.start();
    service = await startSharedService(5);
    fake = await startFakeSlack({ users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper' } });
    bridge = await BridgeProcess.start(
      'redis-restart',
      bridgeEnv({
        serviceUrl: service.url,
        service: service.service,
        fake,
        stateUrl: redis.url,
        instanceId: 'redis-a',
      }),
    );
    driver = new SlackDriver(bridge.eventsUrl, SIGNING_SECRET, fake.team);
  }, 60_000);

  afterAll(async () => {
    await bridge?.kill();
    await redis?.stop();
    await fake?.close();
    await service?.close();
  });

  const botReplies = (channel: string, thread: string): FakeMessage[] =>
    fake.replies(channel, thread).filter((m) => m.user === fake.botUserId);
  const answered = (channel: string, thread: string, question: string): boolean => {
    const stored = service.storedAnswers(question).at(-1);
    return stored !== undefined && answerStart(botReplies(channel, thread), stored) !== undefined;
  };

  test('messages sent while Redis is down and after it is back are all answered, in the same session', async () => {
    const opening = 'Show me homes for sale in Austin';
    await driver.command('/ask', opening, { user: 'U0USER1', channel: 'C0REDIS' });
    const root = await waitFor(
      () => fake.channelMessages('C0REDIS').find((m) => m.text.includes(`> ${opening}`)),
      'the /ask root',
    );
    await waitFor(() => answered('C0REDIS', root.ts, opening), 'the first answer', 30_000);

    await redis.stop();
    // During the outage: a follow-up in the thread and a new mention elsewhere. Slack gets its 200
    // at once (the bridge acknowledges before it touches the store).
    const duringFollowUp = 'And homes for rent in Denver?';
    const mentionTs = nextTs();
    const mentionText = 'Any condos for sale in Seattle?';
    const r1 = await driver.event({
      type: 'message',
      channel: 'C0REDIS',
      channel_type: 'channel',
      user: 'U0USER1',
      text: duringFollowUp,
      ts: nextTs(),
      thread_ts: root.ts,
    });
    const r2 = await driver.event({
      type: 'app_mention',
      channel: 'C0REDIS2',
      user: 'U0USER2',
      text: `<@${fake.botUserId}> ${mentionText}`,
      ts: mentionTs,
    });
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(bridge.exit).toBeUndefined();

    await redis.start();
    await waitFor(() => answered('C0REDIS', root.ts, duringFollowUp), 'the follow-up sent during the outage', 60_000);
    await waitFor(() => answered('C0REDIS2', mentionTs, mentionText), 'the mention sent during the outage', 60_000);

    // After the restart, the thread still continues its session.
    const afterFollowUp = 'Houses for sale in Miami?';
    await driver.event({
      type: 'message',
      channel: 'C0REDIS',
      channel_type: 'channel',
      user: 'U0USER1',
      text: afterFollowUp,
      ts: nextTs(),
      thread_ts: root.ts,
    });
    await waitFor(() => answered('C0REDIS', root.ts, afterFollowUp), 'the follow-up after the restart', 30_000);

    const session = service.sessionOf(opening);
    expect(session).toBeDefined();
    expect(service.questionsOf(session!)).toEqual([opening, duringFollowUp, afterFollowUp]);
    for (const q of [opening, duringFollowUp, afterFollowUp, mentionText])
      expect(service.storedAnswers(q)).toHaveLength(1);
    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(200);
    expect(bridge.exit).toBeUndefined();
  }, 150_000);
});
