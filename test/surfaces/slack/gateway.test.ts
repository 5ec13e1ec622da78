/**
 * The Slack surface's one outbound path under a burst from every kind of caller at once: answers'
 * interims and finals (relay), handoff relays (posts), button updates (cards), ephemerals. The fake
 * Web API enforces Slack's budgets: the gateway must never exceed any of them, and the finals of the
 * answers in flight must go out although interims queued before them still wait.
 */
import type { MessageRef, Place } from '../../../src/core/surface';
import type { SlackPort } from '../../../src/surfaces/slack/port';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { AssistantThreads } from '../../../src/surfaces/slack/assistant-api';
import { UserNames } from '../../../src/surfaces/slack/users';
import { FakeSlack } from '../../../fakes/fake-slack';
import { type SlackPortRig, slackPortOn, startSlackPortRig } from '../../support/slack-port';
import { silentLog } from '../../core/relay/fake-stream';

describe('SlackGateway: one outbound path', () => {
  let rig: SlackPortRig;
  let fake: FakeSlack;
  let port: SlackPort;

  beforeAll(async () => {
    rig = await startSlackPortRig({ team: 'T0GATE', streaming: 'unknown_method' });
    ({ fake, port } = rig);
  });

  afterAll(() => rig.close());

  test('a burst from relay, handoff, cards and ephemerals stays within every budget, and finals are not starved', async () => {
    const channel = (c: string, thread?: string): Place => ({
      surface: 'slack',
      workspace: fake.team,
      channel: c,
      ...(thread ? { thread } : {}),
    });
    // Twelve answers about to finish, each with its message posted and its final reserved, and
    // twelve other messages still streaming (one call at a time per message, as the relay does).
    const answers: MessageRef[] = [];
    const streaming: MessageRef[] = [];
    for (let i = 0; i < 12; i++) answers.push(await port.post(channel(`C0ANS${i}`), { text: '', typing: true }));
    for (let i = 0; i < 12; i++) streaming.push(await port.post(channel(`C0STR${i}`), { text: '', typing: true }));
    const releases = answers.map((ref, i) => port.reserveFinal(ref.place, `answer-${i}`));
    const pages = await port.post(channel('C0CARDS'), { text: 'page 1' });
    const updatesBefore = fake.callsOf('chat.update').length;

    // Interims first: five per streaming message, more than the 50-a-minute chat.update budget can carry.
    const interims = streaming.flatMap((ref, i) =>
      [1, 2, 3, 4, 5].map((k) =>
        port
          .edit(
            ref,
            { text: `answer ${i} part ${k}`, typing: true },
            { priority: 'interim', coalesceKey: `interim-${i}-${k}` },
          )
          .then(
            () => 'sent',
            () => 'dropped',
          ),
      ),
    );
    // Then everything else at once: card updates, ephemerals, handoff relays into one thread, finals.
    const cards = [2, 3, 4, 5, 6].map((n) => port.update(pages, { text: `page ${n}` }));
    const ephemerals = Array.from({ length: 20 }, (_, i) =>
      port.notify(channel('C0EPH'), { id: `U0E${i}`, name: 'someone', isAdmin: false }, { text: `only for you ${i}` }),
    );
    const relays = Array.from({ length: 3 }, (_, i) =>
      port.post(channel('C0HAND', '1700000000.000100'), { text: `*Agent:* message ${i}` }),
    );
    const finals = answers.map((ref, i) =>
      port.edit(ref, { text: `answer ${i} complete` }, { coalesceKey: `answer-${i}` }),
    );

    await Promise.all([...finals, ...cards, ...ephemerals, ...relays]);
    for (const r of releases) r();
    for (const [i, ref] of answers.entries())
      expect(fake.message(ref.place.channel, ref.id)!.text).toBe(`answer ${i} complete`);
    expect(fake.message('C0CARDS', pages.id)!.text).toBe('page 6');

    // Interims only ever used what the finals left: 50 - 12 reserved at most, and no more calls
    // than the budget holds went out.
    const updates = fake.callsOf('chat.update').length - updatesBefore;
    expect(updates).toBeLessThanOrEqual(50);
    port.close();
    const outcome = await Promise.all(interims);
    expect(outcome.filter((o) => o === 'sent').length).toBeLessThanOrEqual(50 - 12);
    expect(outcome.filter((o) => o === 'dropped').length).toBeGreaterThan(0);
    expect(fake.rateLimited).toBe(0);
  }, 30_000);
});

describe('SlackGateway: methods besides messages spend its budgets too', () => {
  test("a status takes its clear's token with its own, in one store call; the clear takes none", async () => {
    const fake = await new FakeSlack({ team: 'T0STAT' }).start();
    const store = new SqliteStore(':memory:');
    const port = slackPortOn(fake, store);
    try {
      const threads = new AssistantThreads({ gateway: () => port.gateway, log: silentLog, team: () => fake.team });
      const dm: Place = { surface: 'slack', workspace: fake.team, channel: 'D0STAT', thread: '1.000' };
      await threads.setStatus(dm, 'is thinking…');
      await threads.setStatus(dm, '');
      expect(fake.callsOf('assistant.threads.setStatus').map((c) => c.args.status)).toEqual(['is thinking…', '']);
      // Two tokens in the log for the two calls: a third fits under a limit of 3, a fourth does not.
      const key = 'slack:T0STAT:assistant.setStatus:D0STAT';
      expect((await store.takeToken(key, 3, 60_000)).granted).toBe(true);
      expect((await store.takeToken(key, 3, 60_000)).granted).toBe(false);
    } finally {
      port.close();
      await fake.close();
      await store.close();
    }
  });

  test('users.info and the assistant methods take their tokens in the store, through the gateway', async () => {
    const fake = await new FakeSlack({ team: 'T0METH' }).start();
    const store = new SqliteStore(':memory:');
    const port = slackPortOn(fake, store);
    try {
      const spent = async (key: string): Promise<boolean> => !(await store.takeToken(key, 1, 60_000)).granted;
      await new UserNames(port.gateway, store, silentLog).name(fake.team, 'U0NAME');
      expect(fake.callsOf('users.info')).toHaveLength(1);
      expect(await spent('slack:T0METH:users.info')).toBe(true);

      const threads = new AssistantThreads({ gateway: () => port.gateway, log: silentLog, team: () => fake.team });
      const dm: Place = { surface: 'slack', workspace: fake.team, channel: 'D0METH', thread: '1.000' };
      await threads.setStatus(dm, 'is thinking…');
      await threads.setTitle(dm, 'Homes in Austin');
      expect(fake.callsOf('assistant.threads.setStatus')).toHaveLength(1);
      expect(fake.callsOf('assistant.threads.setTitle')).toHaveLength(1);
      expect(await spent('slack:T0METH:assistant.setStatus:D0METH')).toBe(true);
      expect(await spent('slack:T0METH:assistant.threads.setTitle')).toBe(true);
    } finally {
      port.close();
      await fake.close();
      await store.close();
    }
  });
});
