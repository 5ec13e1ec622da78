/**
 * Each office its own handoff rules, through signed Slack requests: `/handoff settings` shows the
 * office's rules (each its own or the deployment's), refuses a member who is no admin, names the
 * setting and the fix for a bad value (nothing stored), and a value set for the office is what the
 * handoff then follows (HANDOFF_ON_NO_ANSWER: an unanswered question is handed to a human), with the
 * deployment's value again after `default`. `/chatbot hours` (the office card `/chatbot connect`
 * shows too) lists them.
 */
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { ADMIN, HANDOFF_CHANNEL, rootFor, startSlackE2E } from '../../support/slack-e2e';

const UNANSWERED = 'Could you tell me a joke about penguins?';

describe('Slack e2e: /handoff settings, each office its own handoff rules', () => {
  const e = useStarted(() => startSlackE2E());

  /** The newest ephemeral to `user` in `channel` after `before` of them, as text (its card included). */
  async function told(channel: string, user: string, before: number): Promise<string> {
    const m = await waitFor(
      () => e.fake.ephemerals.slice(before).find((x) => x.channel === channel && x.user === user),
      `the reply in ${channel}`,
    );
    return JSON.stringify(m);
  }

  async function settings(args: string, user = ADMIN, channel = 'C0HSET'): Promise<string> {
    const before = e.fake.ephemerals.length;
    await e.driver.command('/handoff', `settings ${args}`.trim(), { user, channel });
    return told(channel, user, before);
  }

  const officeRecord = async () => JSON.stringify((await e.app.store.keys('')).filter((k) => k.endsWith(':office')));

  test('shown to an admin, each rule with where it comes from; refused to a member', async () => {
    const shown = await settings('');
    for (const name of ['HANDOFF_ASSIGN', 'HANDOFF_OFFER_S', 'HANDOFF_ON_NO_ANSWER', 'LINK_HOSTS'])
      expect(shown).toContain(name);
    expect(shown).toContain("the deployment's");
    expect(await settings('', 'U0USER1')).toContain('Only admins');
    expect(await settings('HANDOFF_ON_NO_ANSWER true', 'U0USER1')).toContain('Only admins');
  });

  test('a bad value names the setting and the fix; nothing is stored', async () => {
    const before = await officeRecord();
    const bad = await settings('HANDOFF_OFFER_S soon');
    expect(bad).toContain('HANDOFF_OFFER_S');
    expect(bad).toContain('must be a number of seconds greater than 0');
    expect(bad).toContain('/handoff settings HANDOFF_OFFER_S 90');
    const unknown = await settings('HANDOFF_COLOUR blue');
    expect(unknown).toContain('is not a handoff setting');
    const hosts = await settings('LINK_HOSTS https://homes.example.com/x');
    expect(hosts).toContain('LINK_HOSTS');
    expect(hosts).toContain('no https://');
    expect(await officeRecord()).toBe(before);
  });

  test("the office's HANDOFF_ON_NO_ANSWER is what an unanswered question follows; default is the deployment's again", async () => {
    // The deployment's default (false): the way to a human is shown, no ticket.
    await e.driver.command('/ask', UNANSWERED, { user: 'U0USER1', channel: 'C0HSASK' });
    const root = await waitFor(() => rootFor(e.fake, 'C0HSASK', UNANSWERED), 'the first root');
    await waitFor(
      () => e.fake.replies('C0HSASK', root.ts).find((m) => m.text.includes("I don't have an answer")),
      'the no-answer line',
    );
    expect(e.fake.channelMessages(HANDOFF_CHANNEL)).toHaveLength(0);

    const set = await settings('HANDOFF_ON_NO_ANSWER yes');
    expect(set).toContain('HANDOFF_ON_NO_ANSWER is true for this office');
    expect(await officeRecord()).toContain(':office');

    const second = `${UNANSWERED} Please.`;
    await e.driver.command('/ask', second, { user: 'U0USER1', channel: 'C0HSASK' });
    const ticket = await waitFor(() => e.fake.channelMessages(HANDOFF_CHANNEL)[0], 'the ticket the office rule opened');
    expect(JSON.stringify(ticket)).toContain('no answer');

    // `/chatbot hours` shows the office card (as `/chatbot connect` does): the rule, marked as the office's.
    const before = e.fake.ephemerals.length;
    await e.driver.command('/chatbot', 'hours', { user: ADMIN, channel: 'C0HSET' });
    const card = await told('C0HSET', ADMIN, before);
    expect(card).toContain('Handoff settings');
    expect(card).toContain('HANDOFF_ON_NO_ANSWER true (this office)');

    const back = await settings('HANDOFF_ON_NO_ANSWER default');
    expect(back).toContain("HANDOFF_ON_NO_ANSWER: back to the deployment's (false)");
  });
});
