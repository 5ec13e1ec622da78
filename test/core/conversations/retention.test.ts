/**
 * Retention: a conversation, its chat session and its transcript expire RETENTION_DAYS after the
 * conversation's last activity (here shortened to seconds), and activity keeps them alive.
 */
import { requestTenant } from '../../../src/core/tenants/tenant';
import { startCoreHarness } from '../../support/core-harness';
import { waitFor } from '../../../fakes/wait-for';
import { conversationIdOf, convKeys } from '../../../src/core/conversations/model';
import { convStore } from '../../support/conv-records';
import { ticketKeys } from '../../../src/core/handoff/model';
import { untrusted } from '../../../src/core/text/untrusted';
import { useStarted } from '../../support/server-setup';

const RETENTION_MS = 2_500;

describe('conversations: retention', () => {
  const h = useStarted(() => startCoreHarness({ serviceOptions: { fragmentDelayMs: 1 }, retentionMs: RETENTION_MS }));

  it('expire after the retention without activity; kept while active', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Homes for sale in Austin?');
    const thread = h.surface.calls.find((c) => c.op === 'startThread')!.place!;
    await h.bridge.conversations.idle();
    const convId = conversationIdOf(thread);
    const stored = async () => ({
      conversation: await convStore(h.store, thread).get(convKeys.conversation(convId)),
      session: await convStore(h.store, thread).get(convKeys.session(convId)),
      transcript: await convStore(h.store, thread).get(convKeys.transcript(convId)),
    });
    const first = await stored();
    expect(first.conversation).toBeDefined();
    expect(first.session).toBeDefined();
    expect(first.transcript).toBeDefined();

    // Activity before the retention ends keeps everything (each message restarts it).
    const activeUntil = Date.now() + RETENTION_MS * 1.5;
    let n = 0;
    while (Date.now() < activeUntil) {
      await h.bridge.message(
        {
          tenant: requestTenant(thread),
          surface: h.surface,
          place: thread,
          actor: h.users.alice,
          for: h.users.alice,
          text: untrusted(`and ${n}?`),
          id: `keep-${n++}`,
          attachments: [],
          startsConversation: false,
        },
        h.surface,
      );
      await h.bridge.conversations.idle();
      await new Promise((r) => setTimeout(r, RETENTION_MS / 4));
    }
    const kept = await stored();
    expect(kept.conversation).toBeDefined();
    expect(kept.transcript).toBeDefined();

    // Then silence: all three expire.
    await waitFor(
      async () => {
        const s = await stored();
        return s.conversation === undefined && s.session === undefined && s.transcript === undefined;
      },
      'the conversation, session and transcript to expire',
      RETENTION_MS * 4,
    );
  }, 60_000);

  it('tickets and the keys that find them expire after the retention without a change', async () => {
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Homes for rent in Denver?');
    const thread = h.surface.calls.filter((c) => c.op === 'startThread').at(-1)!.place!;
    await h.bridge.conversations.idle();
    await h.bridge.command(h.invocation(h.users.alice, thread), 'handoff', 'a person, please');
    const ticketKeysNow = async () =>
      [
        ...(await h.store.keys('ticket:')),
        ...(await h.store.keys(ticketKeys.openPrefix)),
        ...(await h.store.keys('ticketthread:')),
        ...(await h.store.keys('ticketmsg:')),
      ].length;
    expect(
      await waitFor(async () => (await ticketKeysNow()) >= 4 && (await ticketKeysNow()), 'the ticket and its keys'),
    ).toBeGreaterThanOrEqual(4);
    expect(await convStore(h.store, thread).get(convKeys.handoff(conversationIdOf(thread)))).toBeDefined();
    // Nobody touches it: the ticket, its open marker and its lookups all expire.
    await waitFor(async () => (await ticketKeysNow()) === 0, 'the ticket keys to expire', RETENTION_MS * 4);
    expect(await convStore(h.store, thread).get(convKeys.handoff(conversationIdOf(thread)))).toBeUndefined();
  }, 60_000);
});
