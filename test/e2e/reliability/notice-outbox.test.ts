/**
 * The crash window between a ticket change and its notices: the bridge is SIGKILLed exactly after a
 * ticket was opened ("Talk to a human"), then after a claim, a close and a rating, each saved with its
 * notices and before any notice went out (test hook BRIDGE_TEST_PAUSE_BEFORE_NOTICES). Another
 * instance started on the same store carries out every notice exactly once: the ticket message and
 * the user's notice (then edited by the claim), the posts in both threads, an agent's message to the
 * user (also redelivered by Slack: still once), the rating prompt and the removal of the user's
 * Cancel button. Before the outbox, these notices were lost.
 */
import { join } from 'node:path';
import { NOTICE_BOX } from '../../../src/core/handoff/notice';
import { REDONE_LINE } from '../../../src/core/handoff/notices';
import { RedisStore } from '../../../src/state/redis-store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { StateStore } from '../../../src/state/store';
import { tempDir } from '../../support/app-env';
import { type BridgeProcess, flushRedisDb, HANDOFF_CHANNEL, nextTs } from '../../support/bridge-process';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { expectShows, useRig } from './rig';

const HOOK_LINE = 'test hook: paused between a ticket change and its notices';
const USERS = 'C0OUTBOX';
const ADA = 'U0USER1';
const SMITH = 'U0AGENT';

/** Redis database 8 is this file's alone (store tests use 9-11, other reliability tests 12-15). */
const REDIS_URL = 'redis://127.0.0.1:6379/8';

describe.each([['SQLite'], ['Redis']] as const)(
  'reliability: killed between a ticket change and its notices (%s)',
  (backing) => {
    let store: StateStore;
    const tmp = tempDir('notice-outbox-');
    const dbPath = join(tmp.dir, 'bridge.db');
    const stateUrl = backing === 'Redis' ? REDIS_URL : `sqlite:${dbPath}`;
    const rig = useRig({
      fragmentDelayMs: 2,
      ...(backing === 'Redis' ? { flushRedis: REDIS_URL } : {}),
      slack: { users: { [ADA]: 'Ada Lovelace', [SMITH]: 'Agent Smith' } },
    });
    const start = (id: string, extra: Record<string, string> = {}): Promise<BridgeProcess> =>
      rig.start(id, { stateUrl, extra });
    const driverOf = (p: BridgeProcess): SlackDriver => rig.driverOf(p);
    const click = (p: BridgeProcess, msg: FakeMessage, label: string, user: string) =>
      driverOf(p).click(
        button(msg, label)!,
        { channel: msg.channel, messageTs: msg.ts, ...(msg.thread_ts ? { threadTs: msg.thread_ts } : {}) },
        { user },
      );
    /** Kills `p` where the hook paused it, after checking it paused there. */
    const killInWindow = async (p: BridgeProcess): Promise<void> => {
      await rig.expectLine(p, HOOK_LINE, 20_000);
      p.signal('SIGKILL');
      await p.waitExit(5000);
    };
    const pendingNotices = async (): Promise<number> => (await store.pendingIntents(NOTICE_BOX, 100)).length;
    /** Waits until the next instance carried out every saved notice; asserts none is left. */
    const expectNoticesCarriedOut = async (what: string): Promise<void> => {
      const left = await waitFor(
        async () => {
          const pending = await store.pendingIntents(NOTICE_BOX, 100);
          return pending.length === 0 ? pending : undefined;
        },
        what,
        30_000,
      );
      expect(left).toEqual([]);
    };
    const firstLine = (m: FakeMessage): string => m.text.split('\n')[0]!;

    beforeAll(() => {
      rig.fake.channelMembers[HANDOFF_CHANNEL] = [SMITH];
    });
    afterAll(async () => {
      await store?.close();
      if (backing === 'Redis') await flushRedisDb(REDIS_URL);
      tmp.remove();
    });

    test('after the opening, a claim, a close and a rating: every notice arrives exactly once from the next instance', async () => {
      // The first instance pauses at its first ticket change with notices: the opening of the ticket.
      const opener = await start('outbox-o', { BRIDGE_TEST_PAUSE_BEFORE_NOTICES: '1' });
      const question = 'Which homes are for sale in Austin?';
      const root = await rig.ask(opener, question, USERS, ADA);
      const answer = await waitFor(
        () => rig.fake.replies(USERS, root.ts).find((m) => button(m, 'Talk to a human')),
        'the answer with Talk to a human',
      );
      store = backing === 'Redis' ? new RedisStore(REDIS_URL) : new SqliteStore(dbPath);

      // "Talk to a human": the ticket is saved with its opening notices, then killed before any went out.
      await click(opener, answer, 'Talk to a human', ADA);
      await killInWindow(opener);
      const tickets = (): FakeMessage[] => rig.fake.channelMessages(HANDOFF_CHANNEL).filter((m) => button(m, 'Claim'));
      const notices = (): FakeMessage[] => rig.fake.replies(USERS, root.ts).filter((m) => button(m, 'Cancel'));
      expect(tickets()).toHaveLength(0);
      expect(notices()).toHaveLength(0);
      // The user's notice, the ticket message, the removal of "Talk to a human".
      expect(await pendingNotices()).toBe(3);

      // The next instance posts the ticket message and the user's notice, once each.
      const replayer = await start('outbox-r');
      await expectNoticesCarriedOut('the opening carried out');
      const ticket = await waitFor(() => tickets()[0], 'the ticket');
      const notice = await waitFor(() => notices()[0], 'the user notice with Cancel');
      expect(tickets()).toHaveLength(1);
      expect(notices()).toHaveLength(1);
      expect(ticket.text).toMatch(/^Waiting since/);
      expect(button(rig.fake.message(USERS, answer.ts)!, 'Talk to a human')).toBeUndefined();
      expect(replayer.problems().filter((l) => /notice/.test(l))).toEqual([]);
      replayer.signal('SIGTERM');
      await replayer.waitExit(15_000);

      const userThread = (): string[] => rig.fake.replies(USERS, root.ts).map((m) => m.text);
      const ticketThread = (): string[] => rig.fake.replies(HANDOFF_CHANNEL, ticket.ts).map((m) => m.text);
      const ticketNow = (): FakeMessage => rig.fake.message(HANDOFF_CHANNEL, ticket.ts)!;
      const count = (texts: string[], re: RegExp): number => texts.filter((t) => re.test(t)).length;

      // Claim (on the message the replay posted): saved with its notices, then killed before any went out.
      const first = await start('outbox-a', { BRIDGE_TEST_PAUSE_BEFORE_NOTICES: '1' });
      await click(first, ticket, 'Claim', SMITH);
      await killInWindow(first);
      expect(count(userThread(), /Agent Smith \(agent\) has joined/)).toBe(0);
      expect(count(ticketThread(), /Agent Smith claimed this ticket/)).toBe(0);
      expect(ticketNow().text.split('\n')[0]).toMatch(/^Waiting since/);
      expect(await pendingNotices()).toBe(3);

      // Another instance (not paused) replays them at start.
      const second = await start('outbox-b');
      await expectNoticesCarriedOut('the notices carried out');
      await expectShows(() => firstLine(ticketNow()), /^Claimed by Agent Smith/, 'the ticket shows the claim');
      expect(count(userThread(), /Agent Smith \(agent\) has joined/)).toBe(1);
      expect(count(ticketThread(), /Agent Smith claimed this ticket/)).toBe(1);
      expect(button(ticketNow(), 'Claim')).toBeUndefined();
      second.signal('SIGTERM');
      await second.waitExit(15_000);

      // The agent's message to the user: saved as a notice under its message id, killed before it
      // went out. The next instance sends it; Slack's redelivery of the same event sends nothing more.
      const relaying = await start('outbox-m', { BRIDGE_TEST_PAUSE_BEFORE_NOTICES: '1' });
      const said = {
        type: 'message',
        channel: HANDOFF_CHANNEL,
        channel_type: 'channel',
        user: SMITH,
        text: 'The house on Elm St is open on Saturday',
        ts: nextTs(),
        thread_ts: ticket.ts,
      };
      const { eventId } = await driverOf(relaying).event(said);
      await killInWindow(relaying);
      const relayed = (): number => count(userThread(), /The house on Elm St is open on Saturday/);
      expect(relayed()).toBe(0);
      expect(await pendingNotices()).toBe(1);
      const redelivered = await start('outbox-n');
      await driverOf(redelivered).event(said, { eventId, retryNum: 1 });
      await expectNoticesCarriedOut('the relay carried out');
      expect(await waitFor(() => relayed() || undefined, 'the agent message in the user thread')).toBe(1);
      await rig.expectLine(redelivered, REDONE_LINE);
      const seenBefore = (): number => redelivered.lines.filter((l) => l.msg === REDONE_LINE).length;
      const before = seenBefore();
      await driverOf(redelivered).event(said, { eventId, retryNum: 2 });
      const seen = await waitFor(
        () => seenBefore() > before && seenBefore(),
        'the second redelivery met as seen before',
      );
      expect(seen).toBe(before + 1);
      redelivered.signal('SIGTERM');
      await redelivered.waitExit(15_000);
      expect(relayed()).toBe(1);

      // Close: the same window, then a third instance.
      const third = await start('outbox-c', { BRIDGE_TEST_PAUSE_BEFORE_NOTICES: '1' });
      await click(third, ticketNow(), 'Close', SMITH);
      await killInWindow(third);
      expect(count(userThread(), /How would you rate the help/)).toBe(0);
      expect(count(ticketThread(), /Agent Smith closed this ticket/)).toBe(0);
      expect(button(rig.fake.message(USERS, notice.ts)!, 'Cancel')).toBeDefined();
      expect(await pendingNotices()).toBe(4);

      const fourth = await start('outbox-d');
      await expectNoticesCarriedOut('the close notices carried out');
      await expectShows(() => firstLine(ticketNow()), /^Closed by Agent Smith/, 'the ticket shows the close');
      expect(count(userThread(), /How would you rate the help you got from Agent Smith/)).toBe(1);
      const prompt = rig.fake.replies(USERS, root.ts).find((m) => /How would you rate/.test(m.text))!;
      expect(['1', '2', '3', '4', '5'].every((n) => button(prompt, n))).toBe(true);
      expect(count(ticketThread(), /Agent Smith closed this ticket/)).toBe(1);
      // The user's Cancel button is gone; the notice says how the handoff ended.
      const stripped = rig.fake.message(USERS, notice.ts)!;
      expect(button(stripped, 'Cancel')).toBeUndefined();
      expect(stripped.text).toMatch(/\(Handoff closed\.\)/);
      // Nothing twice, including what the earlier replay already delivered.
      expect(count(userThread(), /Agent Smith \(agent\) has joined/)).toBe(1);
      expect(count(ticketThread(), /Agent Smith claimed this ticket/)).toBe(1);
      expect(fourth.problems().filter((l) => /notice/.test(l))).toEqual([]);
      fourth.signal('SIGTERM');
      await fourth.waitExit(15_000);

      // The rating: the user is thanked on the press itself; the ticket's score and the thread's line
      // are notices, killed before they went out and carried out by the next instance.
      const fifth = await start('outbox-e', { BRIDGE_TEST_PAUSE_BEFORE_NOTICES: '1' });
      await click(fifth, prompt, '4', ADA);
      await killInWindow(fifth);
      expect(count(ticketThread(), /Ada Lovelace rated the help 4\/5/)).toBe(0);
      expect(await pendingNotices()).toBe(2);
      await start('outbox-f');
      await expectNoticesCarriedOut('the rating notices carried out');
      await expectShows(() => firstLine(ticketNow()), /rated 4\/5/, 'the ticket shows the score');
      expect(count(ticketThread(), /Ada Lovelace rated the help 4\/5/)).toBe(1);
      // The prompt became the thanks (on the press); no second prompt or close message came.
      expect(rig.fake.message(USERS, prompt.ts)!.text).toContain('You rated the help 4/5');
      expect(count(userThread(), /closed the handoff/)).toBe(1);
      // The opening too: one ticket message, one notice to the user, over every restart.
      expect(rig.fake.channelMessages(HANDOFF_CHANNEL).filter((m) => /Ada Lovelace/.test(m.text))).toHaveLength(1);
      expect(
        rig.fake.replies(USERS, root.ts).filter((m) => m.text.startsWith(notice.text.split('\n')[0]!)),
      ).toHaveLength(1);
    }, 180_000);
  },
);
