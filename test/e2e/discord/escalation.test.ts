/**
 * Discord, configured through the environment: a claimed ticket nobody answers within
 * HANDOFF_FIRST_REPLY_S gets the 80% warning in its thread, then the escalation mentioning the
 * Discord role of HANDOFF_ESCALATE, listed alone in allowed_mentions.roles (the Slack group of the
 * same variable is not written on Discord); the ticket shows "Response target missed by N min".
 * The clock is injected: the test moves it past 80% and past the target of 10 min and runs the sweep.
 */
import { botMessagesIn, startDiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';
import { botSays, firstLine, handOffAfterAnswer, sweepAfter, textMatching } from '../../support/discord-flows';

const ROLE = '112233445566';

describe('Discord: response target and escalation', () => {
  let offset = 0;
  const e = useStarted(() =>
    startDiscordE2E({
      env: { HANDOFF_FIRST_REPLY_S: '600', HANDOFF_ESCALATE: `S0ESCAL8,${ROLE}` },
      now: () => Date.now() + offset,
    }),
  );
  const later = (ms: number): Promise<void> =>
    sweepAfter(
      e,
      (by) => {
        offset += by;
      },
      ms,
    );

  test('warning at 80%, escalation to the configured role only, the miss on the ticket', async () => {
    const { ticket } = await handOffAfterAnswer(e, 'Which homes are for rent in Denver?', 'please call me');
    e.fake.clickButtonLabelled(ticket, 'Claim', e.agent);
    expect(await textMatching(e, () => firstLine(ticket), /^Claimed by/, 'the claim')).toMatch(
      /^Claimed by agent-smith at \d\d:\d\d UTC/,
    );

    // Before 80% of the target nothing is said.
    await later(7 * 60_000);
    expect(botMessagesIn(e.fake, ticket.id).filter((m) => m.content.startsWith('Response target'))).toEqual([]);
    await later(60_000);
    expect(await botSays(e, ticket.id, /^Response target: /, 'the 80% warning')).toBe(
      "Response target: 2 min left for agent-smith's first reply to ada (target 10 min from the claim, in office time).",
    );
    expect(botMessagesIn(e.fake, ticket.id).filter((m) => m.content.includes('Escalated'))).toEqual([]);

    await later(150_000);
    const escalation = await botSays(e, ticket.id, 'Escalated', 'the escalation');
    expect(escalation).toBe(
      `<@&${ROLE}> Escalated: ada has had no reply from agent-smith 10 min after the claim (the response target). Please step in or take it over.`,
    );
    expect(escalation).not.toContain('S0ESCAL8');
    // The one message that mentions a role lists that role alone; nothing else the bridge sent allows one.
    const withRoles = e.fake.calls.filter(
      (c) => (c.body as { allowed_mentions?: { roles?: string[] } } | undefined)?.allowed_mentions?.roles,
    );
    expect(withRoles.map((c) => (c.body as { allowed_mentions: { roles: string[] } }).allowed_mentions.roles)).toEqual([
      [ROLE],
    ]);
    expect(withRoles[0]!.body).toMatchObject({ allowed_mentions: { parse: [] } });
    expect(await textMatching(e, () => ticket.content, /Response target missed by/, 'the miss on the ticket')).toMatch(
      /Response target missed by 1 min/,
    );
  }, 60_000);
});
