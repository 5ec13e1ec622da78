/**
 * A queue item tried a bounded number of times: a question whose every try dies before its answer
 * starts (the bridge SIGKILLed there, each time, by the crash tests' hook) is tried MAX_ITEM_TRIES
 * times across restarts (the count is in the store, with the item), then given up: the user is told
 * in the thread, with a Retry button that answers it, and the item is moved to the tenant's
 * dead-letter list with one log line. Before, it was tried again on every start, for ever.
 */
import { convKeys } from '../../../src/core/conversations/model';
import { GIVEN_UP_LINE, GIVEN_UP_TEXT } from '../../../src/core/conversations/given-up';
import { MAX_ITEM_TRIES } from '../../../src/core/conversations/started';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { tenantStore } from '../../../src/state/tenant-store';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { waitFor } from '../../../fakes/slack-requests';
import { tempDir } from '../../support/app-env';
import { buttonsOf, shownText } from '../../support/bridge-process';
import { useRig } from './rig';

const HOOK_LINE = 'test hook: paused between started and the in-flight record';
const CHANNEL = 'C0TRIES';
const QUESTION = 'Homes for sale in Austin with a pool?';

describe('reliability: a queue item that fails before its answer starts is tried a bounded number of times', () => {
  const rig = useRig({ fragmentDelayMs: 2, slack: { streaming: 'unknown_method' } });
  const tmp = tempDir('bounded-tries-');
  const stateUrl = `sqlite:${tmp.dir}/bridge.db`;
  afterAll(() => tmp.remove());

  const givenUp = (thread: string): FakeMessage | undefined =>
    rig
      .botReplies(CHANNEL, thread)
      .find((m) => shownText(m).includes(GIVEN_UP_TEXT) && buttonsOf(m).some((b) => b.text === 'Retry'));

  test('every try dies before the answer: after the last, the user is told (Retry) and the item moved aside', async () => {
    let root: FakeMessage | undefined;
    for (let attempt = 1; attempt <= MAX_ITEM_TRIES; attempt++) {
      const dying = await rig.start('tries', { stateUrl, extra: { BRIDGE_TEST_PAUSE_BEFORE_RELAY: '1' } });
      if (!root) root = await rig.ask(dying, QUESTION, CHANNEL);
      await rig.expectLine(dying, HOOK_LINE, 30_000);
      dying.signal('SIGKILL');
      await dying.waitExit(5000);
      expect(givenUp(root.ts)).toBeUndefined();
    }

    // The next start finds the item's tries used up: it tells the user instead of trying again.
    const last = await rig.start('tries', { stateUrl });
    const told = await waitFor(() => givenUp(root!.ts), 'the user told in the thread', 30_000);
    const line = await rig.expectLine(last, GIVEN_UP_LINE, 10_000);
    expect(line.tries).toBe(MAX_ITEM_TRIES + 1);
    expect(last.lines.filter((l) => l.msg === GIVEN_UP_LINE)).toHaveLength(1);
    // No placeholder of an earlier try left typing: the message went into it.
    expect(rig.botReplies(CHANNEL, root!.ts).filter((m) => m.text === '' || m.text === 'Thinking…')).toEqual([]);
    expect(rig.service.storedAnswers(QUESTION)).toEqual([]);

    // Moved aside: the queue is empty and the tenant's dead-letter list holds the item.
    const store = new SqliteStore(`${tmp.dir}/bridge.db`);
    try {
      const tenant = tenantStore(store, { surface: 'slack', id: rig.fake.team });
      const dead = await tenant.peek<{ tries: number; value: { text?: string } }>(convKeys.deadLetters);
      expect(dead?.value.tries).toBe(MAX_ITEM_TRIES + 1);
      expect(dead?.value.value.text).toBe(QUESTION);
    } finally {
      await store.close();
    }

    // Retry asks it again, and this time it is answered.
    const retry = buttonsOf(told).find((b) => b.text === 'Retry')!;
    const res = await rig
      .driverOf(last)
      .click(retry, { channel: CHANNEL, messageTs: told.ts, threadTs: root!.ts }, { user: 'U0USER1' });
    expect(res.status).toBe(200);
    await rig.expectAnswered(CHANNEL, root!.ts, QUESTION, 30_000);
  }, 200_000);
});
