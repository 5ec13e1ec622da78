/**
 * A server removes the bot (GUILD_DELETE without `unavailable`) while answers stream in it and in
 * another server: its answer stops at once (the service stream closed, no Discord call about its
 * thread from then on, nothing marked interrupted), the other server's answer completes exact, and
 * invited back the bot answers there normally. The service is the real local one behind a proxy
 * that holds each scripted answer mid-way.
 */
import { waitFor } from '../../../fakes/wait-for';
import { heldAnswer } from '../../support/held-answer';
import { useStarted } from '../../support/server-setup';
import { ask, botMessagesIn, sameAnswer, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { startServiceProxy } from '../faults/service-proxy';

describe('Discord: a server removes the bot while its answer streams', () => {
  const logLines: string[] = [];
  const guild: { id?: string; general?: string } = {};
  const s = useStarted(async () => {
    const proxy = await startServiceProxy();
    const e = await startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      logLines,
      env: { CHATBOT_API_URL: proxy.url },
      prepare: (fake) => {
        const g = fake.addGuild({ name: 'Leaving office', inReady: true });
        guild.id = g.id;
        guild.general = g.general.id;
      },
    });
    proxy.setTarget(e.serviceUrl);
    return {
      e,
      proxy,
      async close() {
        await e.close();
        await proxy.close();
      },
    };
  });

  test('GUILD_DELETE stops that server’s answer at once; the other server’s completes exact; invited back, it answers', async () => {
    const { e, proxy } = s;
    const leaving = guild.id!;
    const a = heldAnswer(
      ['Here are three lofts in Boston. ', 'The first one is on Beacon Street. ', 'All done.'],
      9101,
    );
    const b = heldAnswer(['Denver has two condos for sale. ', 'One is downtown, ', 'one in Highlands.'], 9102);
    proxy.scriptAsk(a.handler, b.handler);

    const { threadId: threadA } = await ask(e, 'Lofts in Boston?', e.user, guild.general!);
    await waitFor(() => a.started() || undefined, 'the leaving server’s answer streaming');
    const { threadId: threadB } = await ask(e, 'Condos in Denver?', e.user, e.general.id);
    await waitFor(() => b.started() || undefined, 'the other server’s answer streaming');
    // The leaving server's answer shows all it can of its first part: nothing more to send until more text comes.
    await waitFor(
      () => botMessagesIn(e.fake, threadA).some((m) => m.content.includes('three lofts in')),
      'the first words of the leaving server’s answer shown',
      15_000,
      e.fake.changes,
    );

    const removedAt = e.fake.calls.length;
    e.fake.leaveGuild(leaving);
    const leftLine = (l: string): boolean => l.includes(`"tenant left: discord ${leaving}: stopped`);
    const line = await waitFor(() => logLines.find(leftLine), 'the leaving handled and logged', 15_000);
    expect(line).toMatch(/stopped 1 answer, deleted \d+ records/);
    await waitFor(() => a.closedEarly() || undefined, 'the leaving server’s service stream closed');

    a.release();
    b.release();
    await waitFor(
      () => sameAnswer(botMessagesIn(e.fake, threadB), b.text) || undefined,
      'the other server’s answer, complete',
      15_000,
      e.fake.changes,
    );
    await e.app.bridge.conversations.idle();
    // From the removal on: not one call about the leaving server's thread (no edit, no post, no
    // "interrupted" mark with Retry).
    const aboutA = e.fake.calls.slice(removedAt).filter((c) => c.path.includes(threadA));
    expect(aboutA).toEqual([]);
    const shownA = botMessagesIn(e.fake, threadA)
      .map((m) => `${m.content} ${JSON.stringify(m.components)}`)
      .join('\n');
    expect(shownA).not.toMatch(/interrupted|Retry|Beacon Street/);
    expect(await e.app.store.keys('inflight:')).toEqual([]);
    expect(logLines.filter(leftLine)).toHaveLength(1);

    // Invited back: the server starts clean and a new question is answered normally.
    e.fake.otherGuilds.set(leaving, { name: 'Leaving office', inReady: false, systemChannelId: guild.general! });
    e.fake.joinGuild(leaving);
    const { threadId: again } = await ask(e, 'Houses for sale in Boston?', e.user, guild.general!);
    await waitForAnswer(e, again, 'Houses for sale in Boston?');
  }, 60_000);
});
