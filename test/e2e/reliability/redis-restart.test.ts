/**
 * Redis restarting under a running bridge: it reconnects and nothing is lost. A redis-server of this
 * test's own (another port, its own data dir) is killed and started again, so the shared server on
 * 6379 that other tests use is never touched.
 */
import { type BridgeProcess, OwnRedis, freePort } from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';
import { useRig } from './rig';

describe('reliability: Redis restarting', () => {
  const redis = useStarted(async () => {
    const own = new OwnRedis(await freePort());
    await own.start();
    return { url: own.url, start: () => own.start(), stop: () => own.stop(), close: () => own.stop() };
  });
  const rig = useRig({ fragmentDelayMs: 5, slack: { users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper' } } });
  let bridge: BridgeProcess;
  beforeAll(async () => {
    bridge = await rig.start('redis-a', { stateUrl: redis.url });
  }, 60_000);

  test('messages sent while Redis is down and after it is back are all answered, in the same session', async () => {
    const opening = 'Show me homes for sale in Austin';
    const root = await rig.ask(bridge, opening, 'C0REDIS');
    await rig.expectAnswered('C0REDIS', root.ts, opening);

    await redis.stop();
    // During the outage: a follow-up in the thread and a new mention elsewhere. Slack gets its 200
    // at once (the bridge acknowledges before it touches the store).
    const duringFollowUp = 'And homes for rent in Denver?';
    await rig.say(bridge, { channel: 'C0REDIS', thread: root.ts }, duringFollowUp);
    const mention = await rig.mention(bridge, 'C0REDIS2', 'Any condos for sale in Seattle?', 'U0USER2');
    expect(bridge.exit).toBeUndefined();

    await redis.start();
    await rig.expectAnswered('C0REDIS', root.ts, duringFollowUp, 60_000);
    await rig.expectAnswered('C0REDIS2', mention.ts, mention.question, 60_000);

    // After the restart, the thread still continues its session.
    const afterFollowUp = 'Houses for sale in Miami?';
    await rig.say(bridge, { channel: 'C0REDIS', thread: root.ts }, afterFollowUp);
    await rig.expectAnswered('C0REDIS', root.ts, afterFollowUp);

    const session = rig.service.sessionOf(opening);
    expect(session).toBeDefined();
    expect(rig.service.questionsOf(session!)).toEqual([opening, duringFollowUp, afterFollowUp]);
    for (const q of [opening, duringFollowUp, afterFollowUp, mention.question])
      expect(rig.service.storedAnswers(q)).toHaveLength(1);
    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(200);
    expect(bridge.exit).toBeUndefined();
  }, 150_000);
});
