/**
 * Two Discord servers on one bot: the handoff channel (DISCORD_HANDOFF_CHANNEL, its server learnt at
 * start) takes its own server's tickets only; the other server is told it has no channel of its own,
 * and /handoff queue and /analytics in each server show that server's tickets only.
 */
import type { FakeChannel } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { ask, handoffIn, responseText, startDiscordE2E, type DiscordE2E } from '../../support/discord-e2e';
import { answerIn, handOffAfterAnswer } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';
import { saveOffice } from '../../../src/core/tenants/offices';
import { tenantFor } from '../../../src/state/tenant-store';

/** A command of `member` in `channel`: its reply once it matches `pattern`. */
async function command(
  e: DiscordE2E,
  member: DiscordE2E['admin'],
  channel: FakeChannel,
  name: string,
  pattern: RegExp,
  reason?: string,
) {
  const rec = e.fake.slashCommand({
    name,
    channelId: channel.id,
    member,
    ...(reason ? { options: [{ name: 'reason', type: 3, value: reason }] } : {}),
  });
  await waitFor(
    () => pattern.test(responseText(e, rec)),
    () => `/${name} in ${channel.id}: ${responseText(e, rec)}`,
    30_000,
    e.fake.changes,
  );
  return responseText(e, rec);
}

describe('Discord: each server sees its own', () => {
  const other: { id?: string; general?: FakeChannel; handoff?: FakeChannel } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      prepare: (fake) => {
        const guild = fake.addGuild({ name: 'Other office', inReady: true });
        other.id = guild.id;
        other.general = guild.general;
        other.handoff = fake.addChannel('handoff-other', undefined, guild.id);
      },
    }),
  );

  test('a ticket of another server never reaches the handoff channel; queue and figures are per server', async () => {
    await handOffAfterAnswer(e, 'Which homes are for sale in Austin?', 'Call me about Austin');

    const { threadId } = await ask(e, 'Which homes are for sale in Denver?', e.user, other.general!.id);
    await answerIn(e, threadId, 'Which homes are for sale in Denver?');
    const refused = handoffIn(e, threadId, 'Call me about Denver');
    await waitFor(
      () => /handoff channel of its own/.test(responseText(e, refused)),
      'the refusal',
      15_000,
      e.fake.changes,
    );
    await e.app.bridge.handoffs.drain();
    expect(e.fake.channelMessages(e.handoff.id).filter((m) => m.content.includes('Denver'))).toEqual([]);

    // With a channel of its own (what /chatbot connect writes), the other server's ticket goes there.
    await saveOffice({ store: e.app.store }, tenantFor('discord', other.id!), { handoffChannel: other.handoff!.id });
    handoffIn(e, threadId, 'Call me about Denver, again');
    await waitFor(
      () => e.fake.channelMessages(other.handoff!.id).find((m) => m.content.includes('Call me about Denver, again')),
      'the other server’s ticket in its own channel',
      15_000,
      e.fake.changes,
    );
    expect(e.fake.channelMessages(e.handoff.id).filter((m) => m.content.includes('Denver'))).toEqual([]);

    // Each server's queue and figures: its own ticket only (the agent and the admin ask in the first server).
    const queueHere = await command(e, e.agent, e.general, 'handoff', /Handoff queue/, 'queue');
    expect(queueHere).toContain('1 open');
    const queueThere = await command(e, e.agent, other.general!, 'handoff', /Handoff queue/, 'queue');
    expect(queueThere).toContain('1 open');
    const reasons = async (guild: string) =>
      (await e.app.bridge.handoffs.queue(tenantFor('discord', guild))).map((t) => t.reason);
    expect(await reasons(e.fake.guildId)).toEqual(['Call me about Austin']);
    expect(await reasons(other.id!)).toEqual(['Call me about Denver, again']);
    expect(await command(e, e.admin, e.general, 'analytics', /Handoffs:/)).toContain('Handoffs: 1 opened');
  });
});
