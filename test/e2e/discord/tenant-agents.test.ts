/**
 * On Discord, the members who can view the handoff channel a server connected with `/chatbot connect`
 * are its agents, though they cannot view the deployment's channel and are no admins: one sees the
 * server's queue, claims its ticket and closes it. A member who cannot view that channel is refused.
 */
import { randomBytes } from 'node:crypto';
import { type FakeChannel, type FakeMember, type InteractionRecord, VIEW_CHANNEL } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { type Bot, makeChatbots, serviceKeys } from '../../support/connect-e2e';
import { ask, handoffIn, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { textMatching } from '../../support/discord-flows';
import { useStarted } from '../../support/server-setup';

/** Discord's Manage Server permission bit, on top of a member's everyday permissions. */
const WITH_MANAGE_SERVER = String(2248473465835073n | 0x20n);

describe('Discord e2e: the viewers of a server’s own handoff channel are its agents', () => {
  const desk: { channel?: FakeChannel; role?: string } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      env: { STATE_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      prepare: (fake) => {
        // The server's own desk: private to its role (and the bot), as the deployment's channel is to `agents`.
        const channel = fake.addChannel('desk');
        const role = fake.addRole('desk-agents');
        const view = VIEW_CHANNEL.toString();
        fake.setOverwrites(channel.id, [
          { id: fake.guildId, type: 0, allow: '0', deny: view },
          { id: role, type: 0, allow: view, deny: '0' },
          { id: fake.botUser.id, type: 1, allow: view, deny: '0' },
        ]);
        Object.assign(desk, { channel, role });
      },
    }),
  );
  let dora: FakeMember;
  let mallory: FakeMember;

  const wait = <T>(probe: () => T | undefined | false, what: string): Promise<T> =>
    waitFor(probe, what, 15_000, e.fake.changes);
  const said = (rec: InteractionRecord, re: RegExp, what: string): Promise<string> =>
    wait(() => re.test(responseText(e, rec)) && responseText(e, rec), what);
  const handoff = (member: FakeMember, channelId: string, value: string) =>
    e.fake.slashCommand({ name: 'handoff', channelId, member, options: [{ name: 'reason', type: 3, value }] });

  beforeAll(async () => {
    const owner = e.fake.addMember('olga-owner');
    owner.permissions = WITH_MANAGE_SERVER;
    dora = e.fake.addMember('dora-desk', [desk.role!]);
    mallory = e.fake.addMember('mallory', []);
    const [bot] = (await makeChatbots(e, 'Desk chatbot')) as [Bot];
    const connect = e.fake.slashCommand({
      name: 'chatbot',
      subcommand: 'connect',
      channelId: e.general.id,
      member: owner,
    });
    const modal = await wait(() => e.fake.modalOf(connect), 'the connect modal');
    const submitted = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: owner,
      values: { chatbotId: bot.id, ...serviceKeys(e) },
      channels: { handoffChannel: [desk.channel!.id] },
    });
    await said(submitted, /Connected/, 'the connection shown');
  });

  test('the desk’s viewer sees the queue, claims the server’s ticket and closes it; a member who cannot view the desk may not', async () => {
    const question = 'Lofts in Denver for the desk?';
    const { threadId } = await ask(e, question);
    await waitForAnswer(e, threadId, question);
    handoffIn(e, threadId, 'a person from the desk please');
    const ticket = await wait(
      () => e.fake.channelMessages(desk.channel!.id).find((m) => m.content.includes('a person from the desk please')),
      'the ticket in the server’s desk',
    );
    const stateLine = (): string => ticket.content.split('\n')[0]!;

    expect(await said(handoff(dora, desk.channel!.id, 'queue'), /queue/, 'the queue')).toMatch(
      /Handoff queue\**: 1 open/,
    );
    expect(await said(handoff(mallory, e.general.id, 'queue'), /queue/, 'the refusal')).toBe(
      'The handoff queue is for members of the handoff channel and admins.',
    );

    const refused = e.fake.clickButtonLabelled(ticket, 'Claim', mallory);
    expect(await said(refused, /claim/, 'Mallory refused')).toBe(
      'Only members of the handoff channel may claim a ticket.',
    );
    expect(stateLine()).toMatch(/^Waiting since/);
    e.fake.clickButtonLabelled(ticket, 'Claim', dora);
    expect(await textMatching(e, stateLine, /^Claimed/, 'claimed by the desk’s agent')).toMatch(
      /^Claimed by dora-desk/,
    );
    e.fake.clickButtonLabelled(ticket, 'Close', dora);
    expect(await textMatching(e, stateLine, /^Closed/, 'closed by the desk’s agent')).toMatch(/^Closed by dora-desk/);
  }, 60_000);
});
