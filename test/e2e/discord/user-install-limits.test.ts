/**
 * A person's own install, within Discord's limits: a private answer reaches its person only through
 * an interaction, whose token Discord honours for 15 minutes (follow-ups through its webhook). The
 * answer fails (the chatbot service answers 500) and shows Retry; 16 minutes later by both clocks
 * (the bridge's, injected, and the fake's record of the interaction), the first token is dead: the
 * Retry press is a new interaction, and the answer comes as follow-ups through its webhook, none
 * sent through the dead token. A Retry on a private answer the bridge cannot tie to its conversation
 * (an answer from before it kept that) gets the clear line instead of silence.
 */
import type { FakeMessage } from '../../../fakes/fake-discord';
import { USER_MESSAGES } from '../../../src/core/user-messages';
import { discordRecords } from '../../../src/surfaces/discord/records';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { waitFor as wait } from '../../../fakes/wait-for';
import { behindServiceProxy } from '../faults/service-proxy';
import { status } from '../../support/fake-chatbot-server';
import { startDiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

const MINUTE = 60_000;
let shift = 0;

describe('Discord user install: Retry and follow-ups within the interaction token’s 15 minutes', () => {
  const started = useStarted(() =>
    behindServiceProxy((url) => startDiscordE2E({ env: { CHATBOT_API_URL: url }, now: () => Date.now() + shift })),
  );

  /** /ask in a server the bot was never added to; the answer's Retry once the service failed. */
  async function failedPrivately(channelId: string, question: string, member = started.e.user) {
    const { e, proxy } = started;
    proxy.scriptAsk(status(500, { error: 'internal' }));
    const rec = e.fake.slashCommand({
      name: 'ask',
      channelId,
      member,
      install: 'user',
      options: [{ name: 'question', type: 3, value: question }],
    });
    const told = await wait(
      () =>
        e.fake.responsesOf(rec).find((m) => e.fake.buttons(m).some((b) => b.label === 'Retry')) as
          | FakeMessage
          | undefined,
      'the failure with Retry',
      20_000,
    );
    return { rec, told };
  }

  const retryOf = (m: FakeMessage) => started.e.fake.buttons(m).find((b) => b.label === 'Retry')!;

  test('Retry 16 minutes later: answered through the press’s own webhook, nothing sent with the dead token', async () => {
    const { e } = started;
    const stranger = e.fake.addStrangerServer();
    const { rec, told } = await failedPrivately(stranger.general.id, 'Which homes are for rent in Denver?');
    expect(told.ephemeral).toBe(true);

    // 16 minutes pass: Discord refuses the first interaction's token, and the bridge knows it ended.
    shift = 16 * MINUTE;
    rec.createdAt -= 16 * MINUTE;
    const callsBefore = e.fake.calls.length;
    const press = e.fake.clickButton({
      message: told,
      customId: retryOf(told).custom_id!,
      member: e.user,
      install: 'user',
    });
    const answered = await wait(
      () => e.fake.responsesOf(press).find((m) => /homes for rent in Denver/.test(m.content)),
      'the retried answer among the press’s follow-ups',
      30_000,
    );
    expect(answered.ephemeral).toBe(true);
    for (const m of e.fake.responsesOf(press)) expect(m.ephemeral).toBe(true);
    // Every call went through the press's interaction (callback and webhook), none with the dead token.
    const calls = e.fake.calls.slice(callsBefore);
    expect(calls.filter((c) => c.path.includes(rec.token))).toEqual([]);
    expect(
      calls.filter((c) => c.path.startsWith(`/webhooks/${e.fake.applicationId}/${press.token}`)).length,
    ).toBeGreaterThan(0);
    expect(calls.filter((c) => c.status >= 400)).toEqual([]);
    // Nothing in the channel: still the person's own.
    expect(e.fake.channelMessages(stranger.general.id).filter((m) => !m.ephemeral)).toEqual([]);
  }, 90_000);

  test('a Retry the bridge cannot tie to its conversation after the token ended: the clear line', async () => {
    const { e } = started;
    shift = 0;
    const stranger = e.fake.addStrangerServer();
    const { rec, told } = await failedPrivately(stranger.general.id, 'Any condos in Austin?');
    // An answer from before the bridge kept which conversation its messages are.
    for (const m of e.fake.responsesOf(rec)) {
      const r = discordRecords.privateMessage(e.app.store, `@me:u${e.user.user.id}`, m.id);
      await r.view.delete(r.key);
    }
    shift = 16 * MINUTE;
    rec.createdAt -= 16 * MINUTE;
    const press = e.fake.clickButton({
      message: told,
      customId: retryOf(told).custom_id!,
      member: e.user,
      install: 'user',
    });
    const line = await wait(
      () => e.fake.responsesOf(press).find((m) => m.content === USER_MESSAGES.privateAnswerEnded),
      'the clear line',
      20_000,
    );
    expect(line.ephemeral).toBe(true);
  }, 60_000);

  test('each person’s private answers are a tenant of their own: their records in their own part, none shared', async () => {
    const { e } = started;
    shift = 0;
    const stranger = e.fake.addStrangerServer();
    const other = e.fake.addMember('olga');
    const mine = await failedPrivately(stranger.general.id, 'Any lofts in Austin, privately?');
    const theirs = await failedPrivately(stranger.general.id, 'Any ranches in Texas, privately?', other);
    const partOf = (userId: string) => tenantPrefix(tenantFor('discord', `@me:u${userId}`));
    const keys = await e.app.store.keys('t:discord:');
    // Each one's interaction and its messages are in that person's part, and in no part every user shares.
    for (const [who, { rec, told }] of [
      [e.user, mine],
      [other, theirs],
    ] as const) {
      expect(keys).toContain(`${partOf(who.user.id)}discord:ix:${rec.id}`);
      expect(keys).toContain(`${partOf(who.user.id)}discord:ixm:${told.id}`);
    }
    expect(keys.filter((k) => k.startsWith(tenantPrefix(tenantFor('discord', '@me'))))).toEqual([]);
    // The other person's part does not hold this one's records.
    expect(keys.filter((k) => k.startsWith(partOf(other.user.id)) && k.includes(mine.rec.id))).toEqual([]);
  }, 60_000);
});
