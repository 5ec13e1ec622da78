/**
 * A workspace leaves through another instance (OAuth mode, two bridges on one Redis): the instance
 * answering it learns of the leaving from the shared store, stops the answer (its service stream
 * closed, no Web API call about its thread from the uninstall on) and nothing marks it interrupted,
 * neither it nor crash recovery; another workspace's answer on that instance completes exact. The
 * leaving is logged once, by the instance that handled the event.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { FakeSlack } from '../../../fakes/fake-slack';
import { sameAnswer, shown } from '../../../fakes/slack-blocks';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { type AppHandle, startApp } from '../../../src/app';
import { loadConfig } from '../../../src/deployment/config';
import { inProcessEnv, startTestService, tempDir } from '../../support/app-env';
import { flushRedisDb } from '../../support/bridge-process';
import { heldAnswer, onChannel } from '../../support/held-answer';
import { useStarted } from '../../support/server-setup';
import { answerMessages, rootFor, SIGNING_SECRET } from '../../support/slack-e2e';
import { install } from '../../support/slack-oauth';
import { oauthEnv } from '../../support/slack-mode';
import { startServiceProxy } from '../faults/service-proxy';

/** This file's own Redis database, emptied before and after. */
const STATE_URL = 'redis://127.0.0.1:6379/11';

interface Instance {
  app: AppHandle;
  lines: string[];
}

describe('Slack OAuth e2e, two instances: a workspace leaves through the instance not answering it', () => {
  const s = useStarted(async () => {
    await flushRedisDb(STATE_URL);
    const tmp = tempDir('slack-leaving-');
    const svc = await startTestService({ dir: tmp.dir, fragmentDelayMs: 2 });
    const proxy = await startServiceProxy();
    proxy.setTarget(svc.url);
    const fake = await new FakeSlack({ users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper' } }).start();
    const key = randomBytes(32).toString('base64');
    const start = async (id: string): Promise<Instance> => {
      const lines: string[] = [];
      const config = loadConfig({
        ...inProcessEnv(svc, tmp.dir),
        ...oauthEnv(key),
        CHATBOT_API_URL: proxy.url,
        STATE_URL,
        INSTANCE_ID: id,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
      });
      const log = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
      return { app: await startApp(config, { log }), lines };
    };
    const one = await start('leaving-one');
    const two = await start('leaving-two');
    return {
      one,
      two,
      fake,
      proxy,
      async close() {
        await Promise.all([one.app.close(3000), two.app.close(3000)]);
        await fake.close();
        await proxy.close();
        await svc.close();
        await flushRedisDb(STATE_URL);
        tmp.remove();
      },
    };
  }, 30_000);

  test('the answering instance stops the answer and marks nothing interrupted', async () => {
    const { one, two, fake, proxy } = s;
    fake.workspaces.addChannels('T0LEFT', 'C0LEFT');
    fake.workspaces.addChannels('T0STAY', 'C0STAY');
    const via = { app: { url: one.app.url }, fake };
    const left = await install(via, { team: 'T0LEFT', teamName: 'Leaving office', user: 'U0USER1' });
    await install(via, { team: 'T0STAY', teamName: 'Staying office', user: 'U0USER2' });
    const a = heldAnswer(
      ['Here are three lofts in Boston. ', 'The first one is on Beacon Street. ', 'All done.'],
      9201,
    );
    const b = heldAnswer(['Denver has two condos for sale. ', 'One is downtown, ', 'one in Highlands.'], 9202);
    proxy.scriptAsk(a.handler, b.handler);

    await left.driver.command('/ask', 'Lofts in Boston?', { user: 'U0USER1', channel: 'C0LEFT' });
    const rootA = await waitFor(() => rootFor(fake, 'C0LEFT', 'Lofts in Boston?'), 'the root in the leaving workspace');
    await waitFor(() => a.started() || undefined, 'the leaving workspace’s answer streaming');
    await waitFor(
      () => answerMessages(fake, 'C0LEFT', rootA.ts).some((m) => shown(m.text).includes('three lofts in')),
      'the first words of the leaving workspace’s answer shown',
    );
    // Which instance answers it (the one holding its in-flight record); the event goes to the other.
    const [record] = await one.app.store.keys('inflight:');
    const owner = (await one.app.store.get<{ owner: string }>(record!))?.owner;
    const runner = owner === 'leaving-one' ? one : two;
    const other = runner === one ? two : one;
    expect([runner.app.instanceId, other.app.instanceId].sort()).toEqual(['leaving-one', 'leaving-two']);
    expect(runner.app.instanceId).toBe(owner);
    // Another workspace's answer on the answering instance.
    const runnerDriver = new SlackDriver(`${runner.app.url}/slack/events`, SIGNING_SECRET, 'T0STAY');
    await runnerDriver.command('/ask', 'Condos in Denver?', { user: 'U0USER2', channel: 'C0STAY' });
    const rootB = await waitFor(
      () => rootFor(fake, 'C0STAY', 'Condos in Denver?'),
      'the root in the staying workspace',
    );
    await waitFor(() => b.started() || undefined, 'the staying workspace’s answer streaming');

    const uninstalledAt = fake.calls.length;
    fake.workspaces.revoke('T0LEFT');
    const otherDriver = new SlackDriver(`${other.app.url}/slack/events`, SIGNING_SECRET, 'T0LEFT');
    expect((await otherDriver.event({ type: 'app_uninstalled' })).status).toBe(200);
    const leftLine = (l: string): boolean => l.includes('"tenant left: slack T0LEFT: stopped');
    const line = await waitFor(
      () => other.lines.find(leftLine),
      'the leaving handled and logged by the other instance',
    );
    // It answered nothing of the workspace itself.
    expect(line).toMatch(/stopped 0 answers, deleted \d+ records/);
    // The answering instance reads the mark on its next look and closes the answer's service stream.
    await waitFor(() => a.closedEarly() || undefined, 'the leaving workspace’s service stream closed', 15_000);
    await waitFor(
      () => runner.lines.find((l) => l.includes('tenant left elsewhere: its answers here stopped')),
      'the answering instance saying it stopped the answer',
    );

    a.release();
    b.release();
    await waitFor(() => {
      const msgs = answerMessages(fake, 'C0STAY', rootB.ts);
      return msgs.length > 0 && msgs.every((m) => !m.streaming) && sameAnswer(msgs, b.text) ? msgs : undefined;
    }, 'the staying workspace’s answer, complete');
    await Promise.all([one.app.bridge.conversations.idle(), two.app.bridge.conversations.idle()]);
    // From the uninstall on: not one call about the leaving workspace's thread, from either instance.
    expect(fake.calls.slice(uninstalledAt).filter(onChannel('C0LEFT'))).toEqual([]);
    const leftShows = answerMessages(fake, 'C0LEFT', rootA.ts)
      .map((m) => `${m.text} ${JSON.stringify(m.blocks)}`)
      .join('\n');
    expect(leftShows).not.toMatch(/interrupted|Retry|Beacon Street/);
    // No answer record is left for either instance's crash recovery to mark.
    expect(await one.app.store.keys('inflight:')).toEqual([]);
    // Logged once: by the instance that handled the event.
    expect([...one.lines, ...two.lines].filter(leftLine)).toHaveLength(1);
  }, 60_000);
});
