/**
 * Each DM user is a tenant of its own (`@me:<DM channel>`), and so are its surface records: the
 * survey form a DM user opens and the long buttons of its DM are kept in its own part of the store,
 * not in one every DM shares ('@me'). Another DM user who replays the first one's form in their own
 * DM is refused, and nothing is written. What a DM kept in the shared part before the upgrade (its
 * marker, its conversation with its transcript, a long button) is moved into the DM user's own part on
 * first use, so nothing is lost.
 */
import type { FakeChannel, FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { conversationIdOf } from '../../../src/core/conversations/model';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { botMessagesIn, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { botSays } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

const partOf = (workspace: string): string => tenantPrefix(tenantFor('discord', workspace));
const SHARED = partOf('@me');

describe('Discord: a DM user’s forms and buttons are in its own part of the store', () => {
  const e = useStarted(() => startDiscordE2E({}));

  const wait = <T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string) =>
    waitFor(fn, what, 15_000, e.fake.changes);

  async function handedOffAndClosed(dm: FakeChannel): Promise<FakeMessage> {
    const question = 'Which homes are for rent in Austin, from a DM?';
    e.fake.directMessage({ member: e.user, content: question });
    const { messages } = await waitForAnswer(e, dm.id, question);
    const last = messages[messages.length - 1]!;
    await wait(() => e.fake.buttons(last).some((b) => b.label === 'Talk to a human'), 'Talk to a human');
    e.fake.clickButtonLabelled(last, 'Talk to a human', e.user);
    const ticket = await wait(
      () => e.fake.channelMessages(e.handoff.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Claim')),
      'the ticket',
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await botSays(e, dm.id, 'agent-smith', 'the user told who joined');
    e.fake.clickButtonLabelled(ticket, 'Close', e.agent);
    return wait(
      () => botMessagesIn(e.fake, dm.id).find((m) => e.fake.buttons(m).some((b) => b.label === 'Rate the help')),
      'the survey prompt in the DM',
    );
  }

  test('the survey form lives in the DM user’s part; another DM user replaying it is refused, nothing written', async () => {
    const dm = e.fake.openDm(e.user);
    const prompt = await handedOffAndClosed(dm);
    const opened = e.fake.clickButtonLabelled(prompt, 'Rate the help', e.user);
    const survey = await wait(() => e.fake.modalOf(opened), 'the survey modal');
    const key = survey.custom_id.split('|')[1]!;
    // In the DM user's own part, not in the part every DM shared.
    expect(await e.app.store.keys(`${partOf(`@me:${dm.id}`)}discord:form:`)).toEqual([
      `${partOf(`@me:${dm.id}`)}discord:form:${key}`,
    ]);
    expect(await e.app.store.keys(SHARED)).toEqual([]);

    // Another DM user submits the first one's form in their own DM: not found there, nothing rated.
    const mallory = e.fake.addMember('mallory');
    const theirs = e.fake.openDm(mallory);
    const replay = e.fake.submitModal({
      customId: survey.custom_id,
      channelId: theirs.id,
      member: mallory,
      values: { comment: 'Terrible.' },
      radios: { rating: '1' },
    });
    await wait(() => /expired/.test(responseText(e, replay)), 'the refusal');
    expect((await e.app.bridge.handoffs.allTickets()).filter((t) => t.rating !== undefined)).toEqual([]);
    expect(await e.app.store.keys(partOf(`@me:${theirs.id}`))).toEqual([]);

    // The owner's own submit still counts.
    e.fake.submitModal({
      customId: survey.custom_id,
      channelId: dm.id,
      member: e.user,
      message: prompt,
      values: { comment: 'Kind.' },
      radios: { rating: '4' },
    });
    await wait(
      async () => (await e.app.bridge.handoffs.allTickets()).some((t) => t.rating === 4),
      'the owner’s rating',
    );
  }, 90_000);

  test('upgrade: a DM’s marker, conversation and long button in the shared part move to the DM user’s own', async () => {
    const member = e.fake.addMember('olga');
    const dm = e.fake.openDm(member);
    const own = partOf(`@me:${dm.id}`);
    const marker = 'M0OLDMARKER';
    const oldPlace = { surface: 'discord' as const, workspace: '@me', channel: dm.id, thread: marker };
    const oldId = conversationIdOf(oldPlace);
    const newId = conversationIdOf({ ...oldPlace, workspace: `@me:${dm.id}` });
    await e.app.store.set(`${SHARED}discord:dm:${dm.id}`, marker);
    await e.app.store.set(`${SHARED}conv:${oldId}`, { id: oldId, place: oldPlace, createdAt: Date.now() });
    await e.app.store.set(`${SHARED}conv:${oldId}:transcript`, [
      { author: 'olga', text: 'My budget is 400k, remember it.', at: Date.now() },
    ]);
    await e.app.store.set(`${SHARED}discord:button:K0OLD`, { action: 'discord.dm.new', value: '' });

    const question = 'Any condos in Denver then?';
    e.fake.directMessage({ member, content: question });
    const { messages } = await waitForAnswer(e, dm.id, question);
    await e.app.bridge.conversations.idle();
    // The conversation goes on where it was: the old turn and the new one in one transcript.
    const turns = (await e.app.store.get(`${own}conv:${newId}:transcript`)) as Array<{ text: string }>;
    expect(turns.map((t) => t.text)).toEqual(expect.arrayContaining(['My budget is 400k, remember it.', question]));
    expect(await e.app.store.get(`${own}conv:${newId}`)).toMatchObject({
      id: newId,
      place: { workspace: `@me:${dm.id}`, thread: marker },
    });

    // A long button posted before the upgrade still works, read from (and moved into) its own part.
    const pressed = e.fake.clickButton({ message: messages[0]!, customId: 'B|K0OLD', member });
    await wait(() => /New conversation/.test(responseText(e, pressed)), 'the old button’s action');
    expect(await e.app.store.get(`${own}discord:button:K0OLD`)).toEqual({ action: 'discord.dm.new', value: '' });
    expect(await e.app.store.keys(SHARED)).toEqual([]);
  }, 90_000);
});
