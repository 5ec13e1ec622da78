/**
 * Redis restarting under a running bridge: it reconnects and nothing is lost. A redis-server of this
 * test's own (another port, its own data dir) is killed and started again, so the shared server on
 * 6379 that other tests use is never touched.
 */
import { type BridgeProcess, OwnRedis, freePort, nextTs } from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';
import { askRoot, expectAnswered, sayInThread, startRig } from '../../support/reliability-rig';

describe('reliability: Redis restarting', () => {
  let redis: OwnRedis | undefined;
  const rig = useStarted(async () => {
    redis = new OwnRedis(await freePort());
    await redis.start();
    return startRig({
      stateUrl: redis.url,
      fragmentDelayMs: 5,
      slack: { users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper' } },
    });
  }, 60_000);
  afterAll(() => redis?.stop());
  let bridge: BridgeProcess;
  beforeAll(async () => {
    bridge = await rig.start('redis-a');
  }, 60_000);

  test('messages sent while Redis is down and after it is back are all answered, in the same session', async () => {
    const opening = 'Show me homes for sale in Austin';
    const driver = rig.driverOf(bridge);
    const root = await askRoot(rig, driver, opening, 'C0REDIS');
    const thread = { channel: 'C0REDIS', thread: root.ts };
    await expectAnswered(rig, thread, opening, 'the first answer');

    await redis!.stop();
    // During the outage: a follow-up in the thread and a new mention elsewhere. Slack gets its 200
    // at once (the bridge acknowledges before it touches the store).
    const duringFollowUp = 'And homes for rent in Denver?';
    const mentionTs = nextTs();
    const mentionText = 'Any condos for sale in Seattle?';
    const r1 = await sayInThread(driver, thread, duringFollowUp);
    const r2 = await driver.event({
      type: 'app_mention',
      channel: 'C0REDIS2',
      user: 'U0USER2',
      text: `<@${rig.fake.botUserId}> ${mentionText}`,
      ts: mentionTs,
    });
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(bridge.exit).toBeUndefined();

    await redis!.start();
    await expectAnswered(rig, thread, duringFollowUp, 'the follow-up sent during the outage', 60_000);
    await expectAnswered(
      rig,
      { channel: 'C0REDIS2', thread: mentionTs },
      mentionText,
      'the mention sent during the outage',
      60_000,
    );

    // After the restart, the thread still continues its session.
    const afterFollowUp = 'Houses for sale in Miami?';
    await sayInThread(driver, thread, afterFollowUp);
    await expectAnswered(rig, thread, afterFollowUp, 'the follow-up after the restart');

    const session = rig.service.sessionOf(opening);
    expect(session).toBeDefined();
    expect(rig.service.questionsOf(session!)).toEqual([opening, duringFollowUp, afterFollowUp]);
    for (const q of [opening, duringFollowUp, afterFollowUp, mentionText])
      expect(rig.service.storedAnswers(q)).toHaveLength(1);
    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(200);
    expect(bridge.exit).toBeUndefined();
  }, 150_000);
});
