/**
 * Two workspaces installed by OAuth on one deployment: each one's reads show its own data only
 * (/handoff queue, the App Home, /analytics' feedback and handoff figures), and a ticket goes only to
 * a handoff channel of its own workspace, posted with its own token; a workspace without a channel of
 * its own is refused clearly (the environment's channel names no workspace).
 */
import { button } from '../../../fakes/slack-blocks';
import { waitFor, type SlackDriver } from '../../../fakes/slack-requests';
import { saveOffice } from '../../../src/core/tenants/offices';
import { FeedbackStore } from '../../../src/state/feedback-store';
import { scoped, tenantFor, tenantStore } from '../../../src/state/tenant-store';
import { useStarted } from '../../support/server-setup';
import { install, startOAuthE2E } from '../../support/slack-oauth';
import { ADMIN, HANDOFF_CHANNEL } from '../../support/slack-e2e';
import { pressTalkToHuman } from '../../support/slack-flows';

describe('Slack OAuth e2e: each workspace sees its own data only', () => {
  const e = useStarted(() => startOAuthE2E());

  /** `user` asks in `channel` of the workspace `d` drives, then presses "Talk to a human" under the answer. */
  async function askForHuman(d: SlackDriver, user: string, channel: string, question: string): Promise<void> {
    await pressTalkToHuman(e.fake, d, user, channel, question);
  }

  const ephemeral = (channel: string, pattern: RegExp) =>
    waitFor(
      () => e.fake.ephemerals.find((x) => x.user === ADMIN && x.channel === channel && pattern.test(x.text)),
      `an ephemeral to the admin in ${channel} matching ${pattern}`,
    );

  test('queue, App Home, /analytics and tickets of workspace A never show in B, and B’s ticket is refused, not posted in A', async () => {
    e.fake.workspaces.addChannels('T0AAA', 'C0AAA', 'C0HANDA', 'C0ADMA');
    e.fake.workspaces.addChannels('T0BBB', 'C0BBB', 'C0HANDB', 'C0ADMB');
    e.fake.channelMembers.C0HANDA = ['U0AGENTA'];
    const a = await install(e, { team: 'T0AAA', teamName: 'Office A', user: 'U0USER1' });
    const b = await install(e, { team: 'T0BBB', teamName: 'Office B', user: 'U0USER2' });
    // A's own handoff channel (what /chatbot connect writes); B has none of its own.
    await saveOffice({ store: e.app.store }, tenantFor('slack', 'T0AAA'), { handoffChannel: 'C0HANDA' });

    const from = e.fake.calls.length;
    await askForHuman(a.driver, 'U0USER1', 'C0AAA', 'Homes in Austin?');
    const ticket = await waitFor(
      () => e.fake.channelMessages('C0HANDA').find((m) => button(m, 'Claim')),
      'A’s ticket in A’s channel',
    );
    expect(ticket.text).toContain('Homes in Austin?');
    for (const c of e.fake.calls.slice(from).filter((x) => x.args.channel === 'C0HANDA')) {
      expect(c.team).toBe('T0AAA');
      expect(c.response.ok).toBe(true);
    }

    await askForHuman(b.driver, 'U0USER2', 'C0BBB', 'Condos in Denver?');
    const refused = await waitFor(
      () => e.fake.ephemerals.find((x) => x.user === 'U0USER2' && /handoff channel of its own/.test(x.text)),
      'B’s handoff refused',
    );
    expect(refused.text).toContain('/chatbot connect');
    // Nothing of B's reached A's channel, the environment's channel or any channel with another token.
    expect(e.fake.channelMessages('C0HANDA').filter((m) => m.text.includes('Condos in Denver?'))).toEqual([]);
    expect(e.fake.channelMessages(HANDOFF_CHANNEL)).toEqual([]);
    expect(e.fake.calls.filter((c) => c.team === 'T0BBB' && c.args.channel === 'C0HANDA')).toEqual([]);

    // /handoff queue: A's ticket in A, none in B.
    await a.driver.command('/handoff', 'queue', { user: ADMIN, channel: 'C0ADMA' });
    expect((await ephemeral('C0ADMA', /Handoff queue/)).text).toContain('1 open');
    await b.driver.command('/handoff', 'queue', { user: ADMIN, channel: 'C0ADMB' });
    expect((await ephemeral('C0ADMB', /Handoff queue/)).text).toContain('No open tickets');

    // App Home, as each workspace publishes it (with its own token).
    for (const d of [a.driver, b.driver]) await d.event({ type: 'app_home_opened', user: ADMIN, tab: 'home' });
    const home = (team: string) =>
      waitFor(
        () => e.fake.calls.find((c) => c.method === 'views.publish' && c.team === team && c.args.user_id === ADMIN),
        `the App Home published in ${team}`,
      );
    expect(JSON.stringify((await home('T0AAA')).args.view)).toContain('1 open');
    const homeB = JSON.stringify((await home('T0BBB')).args.view);
    expect(homeB).toContain('No open tickets');
    expect(homeB).not.toContain('Ada');

    // /analytics: A's vote and A's ticket count in A only.
    await new FeedbackStore(tenantStore(e.app.store, tenantFor('slack', 'T0AAA'))).vote(
      'answer-of-a',
      'U0USER1',
      'positive',
      'slack',
      Date.now(),
    );
    const figures = async (d: SlackDriver, channel: string) => {
      await d.command('/analytics', '', { user: ADMIN, channel });
      return (
        await waitFor(
          () => e.fake.messages.find((m) => m.channel === channel && /Handoffs: \d+ opened/.test(m.text)),
          `/analytics in ${channel}`,
        )
      ).text;
    };
    const inA = await figures(a.driver, 'C0ADMA');
    expect(inA).toContain('Answer feedback: 1 👍, 0 👎');
    expect(inA).toContain('Handoffs: 1 opened');
    const inB = await figures(b.driver, 'C0ADMB');
    expect(inB).toContain('Answer feedback: 0 👍, 0 👎');
    expect(inB).toContain('Handoffs: 0 opened');
    // The index B would read has nothing of A's.
    expect(await tenantStore(e.app.store, tenantFor('slack', 'T0BBB')).keys(scoped('ticket'))).toEqual([]);
  });
});
