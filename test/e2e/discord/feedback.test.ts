/**
 * Answer feedback on Discord through the whole app: every complete answer carries 👍 and 👎; a press
 * is recorded once per person, the other button changes the vote, a negative vote offers "Talk to a
 * human" (ephemeral, and it works), and /analytics counts the votes across surfaces.
 */
import { tenantFor, tenantStore } from '../../../src/state/tenant-store';
import { FeedbackStore } from '../../../src/state/feedback-store';
import { waitFor } from '../../../fakes/wait-for';
import { ask, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

describe('Discord e2e: answer feedback', () => {
  const e = useStarted(() => startDiscordE2E());

  test('👍 and 👎 under the answer: recorded once, changed, a negative vote offers the handoff; /analytics counts them', async () => {
    const question = 'Which homes are for sale in Austin?';
    const { threadId } = await ask(e, question);
    const { messages, answer } = await waitForAnswer(e, threadId, question);
    // The text stays exactly the answer; the rating is in the buttons.
    expect(messages.map((m) => m.content).join('')).toBe(answer);
    const last = await waitFor(
      () => {
        const m = e.fake.messages.get(messages.at(-1)!.id);
        return m && e.fake.buttons(m).some((b) => b.label === '👍') ? m : undefined;
      },
      'the rating buttons',
      10_000,
      e.fake.changes,
    );
    const labels = e.fake.buttons(last).map((b) => b.label);
    expect(labels).toEqual(expect.arrayContaining(['Talk to a human', '👍', '👎']));
    const up = e.fake.buttons(last).find((b) => b.label === '👍')!;
    const id = /up:([A-Za-z0-9_-]+)/.exec(up.custom_id ?? '')![1]!;
    const feedback = new FeedbackStore(tenantStore(e.app.store, tenantFor('discord', e.fake.guildId)));

    const first = e.fake.clickButtonLabelled(last, '👍', e.user);
    const thanks = await waitFor(
      () => e.fake.responsesOf(first).find((m) => /👍 recorded/.test(m.content)),
      'the thanks',
      10_000,
      e.fake.changes,
    );
    expect(thanks.ephemeral).toBe(true);
    expect((await feedback.votesOn(id)).map((v) => `${v.user}:${v.vote}:${v.surface}`)).toEqual([
      `${e.user.user.id}:positive:discord`,
    ]);
    // The answer's record names its message once the relay is done with it (the buttons show a moment before).
    const rated = await waitFor(async () => {
      const a = await feedback.answer(id);
      return a?.message ? a : undefined;
    }, 'the rated answer to name its message');
    expect(rated).toMatchObject({ surface: 'discord', thread: threadId, message: last.id });
    expect(rated?.answerId).toBeDefined();

    const again = e.fake.clickButtonLabelled(last, '👍', e.user);
    const already = await waitFor(
      () => e.fake.responsesOf(again).find((m) => /already rated/.test(m.content)),
      'already rated',
      10_000,
      e.fake.changes,
    );
    expect(already.ephemeral).toBe(true);
    expect(await feedback.votesOn(id)).toHaveLength(1);

    const down = e.fake.clickButtonLabelled(last, '👎', e.user);
    const offer = await waitFor(
      () => e.fake.responsesOf(down).find((m) => /now 👎/.test(m.content)),
      'the changed vote',
      10_000,
      e.fake.changes,
    );
    expect(offer.ephemeral).toBe(true);
    expect(e.fake.buttons(offer).map((b) => b.label)).toContain('Talk to a human');
    expect((await feedback.votesOn(id)).map((v) => v.vote)).toEqual(['negative']);

    // The offered button hands the conversation to a human: a ticket in the handoff channel.
    const before = e.fake.channelMessages(e.handoff.id).length;
    e.fake.clickButtonLabelled(offer, 'Talk to a human', e.user);
    const ticket = await waitFor(() => e.fake.channelMessages(e.handoff.id)[before], 'the ticket');
    expect(e.fake.buttons(ticket).map((b) => b.label)).toContain('Claim');
    expect(ticket.content).toMatch(/^Waiting since \d\d:\d\d UTC/);

    // Someone else's 👍 on the same answer is a separate vote.
    e.fake.clickButtonLabelled(last, '👍', e.admin);
    const votes = await waitFor(async () => {
      const all = await feedback.votesOn(id);
      return all.length === 2 ? all : undefined;
    }, 'the second vote');
    // The user turned theirs down; the admin's is the other, a positive one.
    expect(votes.map((v) => [v.user.endsWith(e.admin.user.id), v.vote])).toEqual(
      expect.arrayContaining([
        [false, 'negative'],
        [true, 'positive'],
      ]),
    );

    const rec = e.fake.slashCommand({ name: 'analytics', channelId: e.general.id, member: e.admin, options: [] });
    const text = await waitFor(
      () => {
        const t = responseText(e, rec);
        return /Answer feedback:/.test(t) ? t : undefined;
      },
      '/analytics',
      20_000,
      e.fake.changes,
    );
    expect(text).toContain('Answer feedback: 1 👍, 1 👎 (50% positive)');
  });
});
