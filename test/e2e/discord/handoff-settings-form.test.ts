/**
 * `/handoff settings` as a form on Discord, one office's rules and not another's. One bot in two
 * servers (no DISCORD_GUILD_ID): A's admin opens the form (two modals: the assignment and times, then
 * the answers and links), a bad time is refused on its field, named, and nothing is saved; fixed, the
 * office's HANDOFF_ASSIGN, claim time, HANDOFF_ON_NO_ANSWER and LINK_HOSTS are saved for A. Then an
 * unanswered question in A is handed to a human (A's rule) while the same question in B is not (the
 * deployment's), and B's rules are all the deployment's.
 */
import type { FakeChannel, FakeMember, FakeMessage, InteractionRecord } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { tenantFor, tenantPrefix } from '../../../src/state/tenant-store';
import { ask, botMessagesIn, responseText, startDiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

const UNANSWERED = 'Could you tell me a joke about penguins?';
const MANAGE_GUILD = 1n << 5n;

describe('Discord: /handoff settings opens a form; the rules are the office’s own', () => {
  const other: { id?: string; general?: FakeChannel; admin?: FakeMember } = {};
  const e = useStarted(() =>
    startDiscordE2E({
      omitEnv: ['DISCORD_GUILD_ID'],
      prepare: (fake) => {
        const guild = fake.addGuild({ name: 'Second office', inReady: true });
        other.id = guild.id;
        other.general = guild.general;
        other.admin = fake.addMember('b-owner');
        other.admin.permissions = String(BigInt('2248473465835073') | MANAGE_GUILD);
      },
    }),
  );
  const wait = <T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string) =>
    waitFor(fn, what, 20_000, e.fake.changes);

  const officeOf = async (guild: string): Promise<string> =>
    JSON.stringify((await e.app.store.get(`${tenantPrefix(tenantFor('discord', guild))}office`)) ?? null);

  /** The panel the form's command answered with, as it is now. */
  const panelOf = (rec: InteractionRecord): Promise<FakeMessage> =>
    wait(
      () => e.fake.responsesOf(rec).find((m) => e.fake.buttons(m).some((b) => b.custom_id?.startsWith('fs|'))),
      'the panel',
    );

  /** Opens the panel's part `n` and submits `values` in it. */
  async function fillPart(rec: InteractionRecord, n: number, values: Record<string, string>): Promise<void> {
    const panel = await panelOf(rec);
    const part = e.fake.buttons(panel).filter((b) => b.custom_id?.startsWith('fg|'))[n]!;
    const opened = e.fake.clickButton({ message: panel, customId: part.custom_id!, member: e.admin });
    const modal = await wait(() => e.fake.modalOf(opened), `part ${n}'s modal`);
    const done = e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: e.admin,
      values,
      message: panel,
    });
    await wait(() => done.callbacks.length > 0, 'the part kept');
  }

  test('a bad time is refused on its field and nothing saved; fixed, A’s rules are saved for A only and followed', async () => {
    const before = await officeOf(e.fake.guildId);
    const rec = e.fake.slashCommand({
      name: 'handoff',
      channelId: e.general.id,
      member: e.admin,
      options: [{ name: 'reason', type: 3, value: 'settings' }],
    });
    const panel = await panelOf(rec);
    expect(panel.content).toContain('Handoff settings');
    await fillPart(rec, 0, { HANDOFF_ASSIGN: 'round-robin', HANDOFF_CLAIM_TIMEOUT_S: 'soon' });
    await fillPart(rec, 1, { HANDOFF_ON_NO_ANSWER: 'true', LINK_HOSTS: 'homes.example.com' });
    const submit = e.fake.buttons(await panelOf(rec)).find((b) => b.custom_id?.startsWith('fs|'))!.custom_id!;
    const refused = e.fake.clickButton({ message: await panelOf(rec), customId: submit, member: e.admin });
    const told = await wait(() => {
      const text = `${responseText(e, refused)}\n${e.fake
        .responsesOf(rec)
        .map((m) => m.content)
        .join('\n')}`;
      return /Please fix these fields/.test(text) && text;
    }, 'the refusal');
    expect(told).toContain('HANDOFF_CLAIM_TIMEOUT_S');
    expect(told).toContain('must be a number of seconds greater than 0');
    expect(await officeOf(e.fake.guildId)).toBe(before);

    await fillPart(rec, 0, { HANDOFF_ASSIGN: 'round-robin', HANDOFF_CLAIM_TIMEOUT_S: '900' });
    e.fake.clickButton({ message: await panelOf(rec), customId: submit, member: e.admin });
    await wait(async () => (await officeOf(e.fake.guildId)).includes('claimTimeoutMs'), 'A’s rules saved');
    const saved = await officeOf(e.fake.guildId);
    for (const part of [
      '"assign":"round-robin"',
      '"claimTimeoutMs":900000',
      '"onNoAnswer":true',
      '"linkHosts":["homes.example.com"]',
    ])
      expect(saved).toContain(part);
    // B's office has none of A's rules.
    expect(await officeOf(other.id!)).not.toContain('claimTimeoutMs');

    // A's HANDOFF_ON_NO_ANSWER: an unanswered question in A is handed to a human.
    const inA = await ask(e, UNANSWERED, e.user, e.general.id);
    await wait(
      () =>
        e.fake
          .channelMessages(e.handoff.id)
          .find((m) => m.content.includes(UNANSWERED) || /no answer/i.test(m.content)),
      'A’s ticket',
    );
    // In B the deployment's rule applies: the no-answer line, and no ticket.
    const tickets = e.fake.channelMessages(e.handoff.id).length;
    const inB = await ask(e, `${UNANSWERED} (B)`, other.admin!, other.general!.id);
    await wait(
      () => botMessagesIn(e.fake, inB.threadId).find((m) => /don't have an answer/i.test(m.content)),
      'B’s no-answer line',
    );
    await e.app.bridge.conversations.idle();
    expect(e.fake.channelMessages(e.handoff.id).length).toBe(tickets);
    expect(inA.threadId).not.toBe(inB.threadId);
  }, 120_000);
});
