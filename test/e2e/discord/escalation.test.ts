/**
 * Discord, configured through the environment: a claimed ticket nobody answers within
 * HANDOFF_FIRST_REPLY_S gets the 80% warning in its thread, then the escalation mentioning the
 * Discord role of HANDOFF_ESCALATE, listed alone in allowed_mentions.roles (the Slack group of the
 * same variable is not written on Discord); the ticket shows "Response target missed by N min".
 */
import {
  ask,
  botMessagesIn,
  startDiscordE2E,
  waitForAnswer,
  type DiscordE2E,
  handoffIn,
} from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';

const ROLE = '112233445566';

describe('Discord: response target and escalation', () => {
  let e: DiscordE2E;

  beforeAll(async () => {
    e = await startDiscordE2E({
      env: {
        HANDOFF_FIRST_REPLY_S: '2',
        HANDOFF_ESCALATE: `S0ESCAL8,${ROLE}`,
        // Short sweeps (a quarter of the shortest handoff interval).
        HANDOFF_REMIND_S: '1',
      },
    });
  });
  afterAll(async () => {
    await e?.close();
  });

  test('warning at 80%, escalation to the configured role only, the miss on the ticket', async () => {
    const question = 'Which homes are for rent in Denver?';
    const { threadId } = await ask(e, question);
    await waitForAnswer(e, threadId, question);
    handoffIn(e, threadId, 'please call me');
    const ticket = await waitFor(
      () => e.fake.channelMessages(e.handoff.id).find((m) => m.content.includes('please call me')),
      'the ticket',
      10_000,
      e.fake.changes,
    );
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    await waitFor(() => /^Claimed by/.test(ticket.content), 'the claim', 10_000, e.fake.changes);

    const escalation = await waitFor(
      () => botMessagesIn(e.fake, ticket.id).find((m) => m.content.includes('Escalated')),
      'the escalation',
      15_000,
      e.fake.changes,
    );
    const texts = botMessagesIn(e.fake, ticket.id).map((m) => m.content);
    expect(texts.some((t) => t.startsWith('Response target: ') && t.includes('left for'))).toBe(true);
    expect(escalation.content.startsWith(`<@&${ROLE}> Escalated:`)).toBe(true);
    expect(escalation.content).not.toContain('S0ESCAL8');
    // The one message that mentions a role lists that role alone; nothing else the bridge sent allows one.
    const withRoles = e.fake.calls.filter(
      (c) => (c.body as { allowed_mentions?: { roles?: string[] } } | undefined)?.allowed_mentions?.roles,
    );
    expect(withRoles.map((c) => (c.body as { allowed_mentions: { roles: string[] } }).allowed_mentions.roles)).toEqual([
      [ROLE],
    ]);
    expect(withRoles[0]!.body).toMatchObject({ allowed_mentions: { parse: [] } });
    await waitFor(
      () => /Response target missed by \d+ min/.test(ticket.content),
      'the miss on the ticket',
      10_000,
      e.fake.changes,
    );
  }, 60_000);
});
