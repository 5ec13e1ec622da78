/**
 * A queue item whose tries fail before its answer starts, at the very first steps (the store failing
 * to read its tenant's leaving mark, before anything else of the item was written), counts each try:
 * after MAX_ITEM_TRIES failures the next worker gives it up (the user told, with Retry; the item in
 * the dead-letter list) instead of trying it again for ever, uncounted. A failure that never ends
 * (even the giving up cannot read what it needs) still ends the item: given up untold, moved aside.
 */
import pino from 'pino';
import { conversationIdOf, convKeys } from '../../../src/core/conversations/model';
import { GIVEN_UP_LINE, GIVEN_UP_TEXT } from '../../../src/core/conversations/given-up';
import { MAX_ITEM_TRIES } from '../../../src/core/conversations/started';
import type { Json } from '../../../src/state/store';
import { SqliteStore } from '../../../src/state/sqlite-store';
import type { Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';
import { convStore } from '../../support/conv-records';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';
import { TEST_SURFACE } from '../../support/test-surface';

/** A store whose reads of tenants' leaving marks fail while `failures` lasts (-1: for ever). */
class FlakyStore extends SqliteStore {
  failures = 0;
  failed = 0;
  override async get<T extends Json = Json>(key: string): Promise<T | undefined> {
    if (key.startsWith('tenant-left:') && this.failures !== 0) {
      if (this.failures > 0) this.failures -= 1;
      this.failed += 1;
      throw new Error('store unavailable (test)');
    }
    return super.get<T>(key);
  }
}

const lines: Array<{ level: number; msg: string; tries?: number }> = [];
const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });

describe('conversations: tries that fail before the answer starts are counted', () => {
  let store: FlakyStore | undefined;
  const h = useStarted(() =>
    startCoreHarness({
      start: false,
      leaseTtlMs: 150,
      log,
      openStore: (path) => {
        store = new FlakyStore(path);
        return store;
      },
    }),
  );

  /** Sweeps (as the bridge's timer would) until `probe` holds. */
  function sweepUntil<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
    return waitFor(
      async () => {
        await h.bridge.conversations.sweep();
        await h.bridge.conversations.idle();
        return probe();
      },
      what,
      20_000,
    );
  }

  const place = (thread: string): Place => ({ surface: TEST_SURFACE, workspace: 'W1', channel: 'C-general', thread });

  it('gives the item up after its last try, tells the user with Retry, and moves it aside', async () => {
    const thread = place('T-tries');
    store!.failures = MAX_ITEM_TRIES;
    await h.say(h.users.alice, thread, 'Homes in Austin with a pool?', { startsConversation: true });
    const told = await sweepUntil(
      () => h.surface.messagesIn(thread).find((m) => m.current.text.includes(GIVEN_UP_TEXT)),
      'the user told the item was given up',
    );
    expect(store!.failed).toBe(MAX_ITEM_TRIES);
    expect(told.current.buttons?.some((b) => b.label === 'Retry')).toBe(true);
    const given = lines.filter((l) => l.msg === GIVEN_UP_LINE);
    expect(given).toHaveLength(1);
    expect(given[0]!.tries).toBe(MAX_ITEM_TRIES + 1);
    const view = convStore(h.store, thread);
    const convId = conversationIdOf(thread);
    expect(await view.length(convKeys.queue(convId))).toBe(0);
    const dead = await view.peek<{ value: { text?: string } }>(convKeys.deadLetters);
    expect(dead?.value.value.text).toBe('Homes in Austin with a pool?');
  });

  it('a failure that never ends: given up untold after the last try, and no further try', async () => {
    const thread = place('T-never');
    lines.length = 0;
    store!.failed = 0;
    store!.failures = -1;
    await h.say(h.users.alice, thread, 'Condos in Denver?', { startsConversation: true });
    await sweepUntil(() => lines.find((l) => l.msg === GIVEN_UP_LINE), 'the item given up');
    expect(store!.failed).toBe(MAX_ITEM_TRIES + 1);
    const view = convStore(h.store, thread);
    expect(await view.length(convKeys.queue(conversationIdOf(thread)))).toBe(0);
    // Nothing left to try: more sweeps read no more marks.
    await h.bridge.conversations.sweep();
    await h.bridge.conversations.idle();
    expect(store!.failed).toBe(MAX_ITEM_TRIES + 1);
    store!.failures = 0;
  });
});
