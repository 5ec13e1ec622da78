/**
 * Each office its own handoff rules, taking effect for that office only: two workspaces installed by
 * OAuth connect chatbots A and B on the local service (answering through a fake OpenAI-compatible
 * backend, on an injected clock). X's admin sets HANDOFF_ASSIGN round-robin, HANDOFF_OFFER_S 30,
 * HANDOFF_REMIND_S 60, HANDOFF_CLAIM_TIMEOUT_S 240, HANDOFF_FIRST_REPLY_S 120 and LINK_HOSTS good.example with `/handoff settings`;
 * Y keeps the deployment's (no assignment, a reminder every 5 min, the user told after 10 min, no
 * trusted host).
 * - X's ticket is offered to X's desk's first agent, Y's ticket to nobody;
 * - 61 s later the sweep re-offers X's ticket (its 30 s offer ran out) and reminds X's thread (its
 *   60 s); Y's thread gets its first reminder only at the deployment's 5 min; X's user is told nobody
 *   picked it up yet after X's 4 min, Y's only after the deployment's 10 min;
 * - claimed, X's ticket is warned at 80% of X's 2 min response target and escalated at 2 min; Y's
 *   (the deployment sets no HANDOFF_FIRST_REPLY_S) neither;
 * - the same answer linking good.example shows a link in X and the URL as text in Y.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button, shown } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { startFakeOpenAi } from '../../support/fake-openai-server';
import { useStarted } from '../../support/server-setup';
import { waitForAnswer, rootFor } from '../../support/slack-e2e';
import { claimOnSlack } from '../../support/slack-claims';
import { pressTalkToHuman, toldIn } from '../../support/slack-flows';
import { OWNER_X, twoConnectedOffices } from '../../support/slack-offices';
import { startOAuthE2E } from '../../support/slack-oauth';

const ANSWER = 'See [our safety page](https://good.example/safety) for how we write to you.';
const LINKED = ['[our safety page](https://good.example/safety)', '<https://good.example/safety|our safety page>'];

describe('Slack e2e: an office’s own handoff rules take effect for that office only', () => {
  let offset = 0;
  const llm = useStarted(() => startFakeOpenAi([ANSWER]));
  const e = useStarted(() => startOAuthE2E({ llm: { baseUrl: llm.baseUrl }, now: () => Date.now() + offset }));
  let x: SlackDriver;
  let y: SlackDriver;
  const tickets: Record<'x' | 'y', FakeMessage | undefined> = { x: undefined, y: undefined };
  const roots: Record<'x' | 'y', string> = { x: '', y: '' };

  const told = (channel: string, text: string, from = 0) => toldIn(e.fake, channel, text, from);

  const thread = (desk: string, ts: string) => e.fake.replies(desk, ts).map((m) => m.text);
  const offers = (desk: string, ts: string) =>
    thread(desk, ts)
      .map((t) => /^Offered to <@(\w+)> \(round-robin\)/.exec(t)?.[1])
      .filter((id): id is string => id !== undefined);
  const reminders = (desk: string, ts: string) => thread(desk, ts).filter((t) => t.startsWith('Reminder'));
  /** The user told nobody picked their request up yet (after the claim timeout), in their thread. */
  const toldLate = (general: string, root: string) =>
    e.fake.replies(general, root).find((m) => m.text.startsWith('No one has picked up your request yet'));

  beforeAll(async () => {
    ({ x, y } = await twoConnectedOffices(e, { x: ['U0AGENTX1', 'U0AGENTX2'], y: ['U0AGENTY1', 'U0AGENTY2'] }));
    for (const s of [
      'HANDOFF_ASSIGN round-robin',
      'HANDOFF_OFFER_S 30',
      'HANDOFF_REMIND_S 60',
      'HANDOFF_CLAIM_TIMEOUT_S 240',
      'HANDOFF_FIRST_REPLY_S 120',
      'LINK_HOSTS good.example',
    ]) {
      const from = e.fake.ephemerals.length;
      await x.command('/handoff', `settings ${s}`, { user: OWNER_X, channel: 'C0XGEN' });
      await told('C0XGEN', `${s.split(' ')[0]} is`, from);
    }
  }, 60_000);

  test('HANDOFF_ASSIGN: X’s ticket is offered round-robin to X’s desk; Y’s, by the deployment’s rule, to nobody', async () => {
    for (const [key, driver, user, general, desk, question] of [
      ['x', x, 'U0USER1', 'C0XGEN', 'C0XDESK', 'Homes in Austin?'],
      ['y', y, 'U0USER2', 'C0YGEN', 'C0YDESK', 'Condos in Denver?'],
    ] as const) {
      roots[key] = (await pressTalkToHuman(e.fake, driver, user, general, question)).root.ts;
      tickets[key] = await waitFor(
        () => e.fake.channelMessages(desk).find((m) => button(m, 'Claim')),
        `the ticket in ${desk}`,
      );
    }
    const tx = tickets.x!;
    const ty = tickets.y!;
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(await waitFor(() => offers('C0XDESK', tx.ts).length > 0 && offers('C0XDESK', tx.ts), 'X’s offer')).toEqual([
      'U0AGENTX1',
    ]);
    await e.app.bridge.handoffs.drain();
    expect(offers('C0YDESK', ty.ts)).toEqual([]);
    expect(thread('C0YDESK', ty.ts).join('\n')).not.toContain('Offered to');
    expect(e.fake.message('C0YDESK', ty.ts)?.text).not.toContain('Offered to');
  }, 60_000);

  test('the times: X’s 30 s offer, 60 s reminder and 240 s claim timeout come due for X only; Y’s at the deployment’s', async () => {
    const tx = tickets.x!;
    const ty = tickets.y!;
    // Nothing is due yet for either.
    await e.app.bridge.handoffs.sweepUnclaimed();
    await e.app.bridge.handoffs.drain();
    expect(reminders('C0XDESK', tx.ts)).toEqual([]);
    expect(offers('C0XDESK', tx.ts)).toEqual(['U0AGENTX1']);

    offset += 61_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(
      await waitFor(() => offers('C0XDESK', tx.ts).length === 2 && offers('C0XDESK', tx.ts), 'X’s re-offer'),
    ).toEqual(['U0AGENTX1', 'U0AGENTX2']);
    const first = await waitFor(() => reminders('C0XDESK', tx.ts)[0], 'X’s first reminder');
    expect(first).toMatch(/^Reminder \(1 of 3\): .+ has been waiting 1 min for an agent/);
    await e.app.bridge.handoffs.drain();
    expect(reminders('C0YDESK', ty.ts)).toEqual([]);
    expect(toldLate('C0XGEN', roots.x)).toBeUndefined();

    // The deployment's HANDOFF_REMIND_S (300 s): Y's first reminder, not before.
    offset += 240_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const y1 = await waitFor(() => reminders('C0YDESK', ty.ts)[0], 'Y’s first reminder');
    expect(y1).toMatch(/^Reminder \(1 of 3\): .+ has been waiting 5 min for an agent/);
    expect(offers('C0YDESK', ty.ts)).toEqual([]);
    // X's HANDOFF_CLAIM_TIMEOUT_S (240 s) passed: X's user told; Y's (the deployment's 600 s) not yet.
    const lateX = await waitFor(() => toldLate('C0XGEN', roots.x), 'X’s user told');
    expect(lateX.text).toContain('(5 minutes)');
    expect(toldLate('C0YGEN', roots.y)).toBeUndefined();
    offset += 300_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const lateY = await waitFor(() => toldLate('C0YGEN', roots.y), 'Y’s user told');
    expect(lateY.text).toContain('(10 minutes)');
  }, 60_000);

  test('HANDOFF_FIRST_REPLY_S: X’s claimed ticket is warned and escalated by X’s target; Y’s has none', async () => {
    const tx = await claimOnSlack(e.fake, x, tickets.x!, 'C0XDESK', 'U0AGENTX2');
    const ty = await claimOnSlack(e.fake, y, tickets.y!, 'C0YDESK', 'U0AGENTY1');
    const targetLines = (desk: string, ts: string) =>
      thread(desk, ts).filter((t) => t.startsWith('Response target') || t.includes('Escalated'));
    offset += 100_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const warned = await waitFor(() => targetLines('C0XDESK', tx.ts)[0], 'X’s warning');
    expect(warned).toMatch(/^Response target: .+ left for .+ first reply .+\(target 2 min from the claim/);
    offset += 21_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    const escalated = await waitFor(() => targetLines('C0XDESK', tx.ts)[1], 'X’s escalation');
    expect(escalated).toMatch(/Escalated: .+ has had no reply from .+ 2 min after the claim/);
    await e.app.bridge.handoffs.drain();
    expect(targetLines('C0YDESK', ty.ts)).toEqual([]);
  }, 60_000);

  test('LINK_HOSTS: the same answer’s link to good.example is a link in X and its URL as text in Y', async () => {
    const answerIn = async (driver: SlackDriver, channel: string, question: string) => {
      const from = e.fake.calls.length;
      await driver.command('/ask', question, { user: 'U0USER3', channel });
      const root = await waitFor(() => rootFor(e.fake, channel, question), `the root in ${channel}`);
      const { messages } = await waitForAnswer(e, channel, root.ts, question);
      const sent = JSON.stringify(
        e.fake.calls
          .slice(from)
          .filter((c) => c.args.channel === channel)
          .map((c) => c.args),
      );
      return { messages, sent };
    };
    const inX = await answerIn(x, 'C0XGEN', 'How do you write to me?');
    expect(LINKED.some((l) => inX.sent.includes(JSON.stringify(l).slice(1, -1)))).toBe(true);

    const inY = await answerIn(y, 'C0YGEN', 'How do you write to me, please?');
    expect(inY.messages.map((m) => shown(m.text)).join('\n')).toContain('https://good.example/safety');
    expect(inY.sent).not.toContain('](https://good.example');
    expect(inY.sent).not.toContain('<https://good.example/safety|');
  }, 60_000);
});
