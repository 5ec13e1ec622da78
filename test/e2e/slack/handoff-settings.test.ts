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

  /** `/handoff settings` with no arguments: the form it opens. */
  async function settingsForm(user = ADMIN): Promise<Record<string, unknown>> {
    const views = e.fake.views.length;
    await e.driver.command('/handoff', 'settings', { user, channel: 'C0HSET' });
    return waitFor(() => e.fake.views[views], 'the settings form');
  }

  test('a form for an admin, each rule a field with the deployment’s value in its hint; refused to a member', async () => {
    const form = JSON.stringify(await settingsForm());
    for (const name of [
      'HANDOFF_ASSIGN',
      'HANDOFF_OFFER_S',
      'HANDOFF_CLAIM_TIMEOUT_S',
      'HANDOFF_ON_NO_ANSWER',
      'LINK_HOSTS',
    ])
      expect(form).toContain(name);
    expect(form).toContain("the deployment's");
    const views = e.fake.views.length;
    expect(await settings('', 'U0USER1')).toContain('Only admins');
    expect(e.fake.views.length).toBe(views);
    expect(await settings('HANDOFF_ON_NO_ANSWER true', 'U0USER1')).toContain('Only admins');
  });

  test('the form refuses bad values on their fields, naming each; nothing is stored; good values are saved', async () => {
    const before = await officeRecord();
    const form = await settingsForm();
    const refused = await e.driver.submitView(
      form,
      { HANDOFF_OFFER_S: 'soon', LINK_HOSTS: 'https://homes.example.com/x', HANDOFF_ASSIGN: 'round-robin' },
      { user: ADMIN },
    );
    const errors = (refused.json as { errors?: Record<string, string> } | undefined)?.errors ?? {};
    expect(Object.values(errors).join('\n')).toContain('HANDOFF_OFFER_S must be a number of seconds greater than 0');
    expect(Object.values(errors).join('\n')).toContain('LINK_HOSTS must be host names');
    expect(JSON.stringify(errors)).not.toContain('HANDOFF_ASSIGN');
    expect(await officeRecord()).toBe(before);

    const shown = e.fake.ephemerals.length;
    const saved = await e.driver.submitView(
      form,
      { HANDOFF_ASSIGN: 'none', HANDOFF_CLAIM_TIMEOUT_S: '900', LINK_HOSTS: 'homes.example.com' },
      { user: ADMIN },
    );
    expect(saved.json).toBeUndefined();
    const card = await told('C0HSET', ADMIN, shown);
    expect(card).toContain('HANDOFF_CLAIM_TIMEOUT_S');
    expect(card).toContain('900 s (this office)');
    expect(card).toContain('homes.example.com (this office)');
    // Opened again, the form shows the office's own values; emptied, the deployment's apply again.
    const again = await settingsForm();
    expect(JSON.stringify(again)).toContain('"initial_value":"900"');
    const cleared = e.fake.ephemerals.length;
    await e.driver.submitView(
      again,
      { HANDOFF_ASSIGN: '', HANDOFF_CLAIM_TIMEOUT_S: '', LINK_HOSTS: '' },
      { user: ADMIN },
    );
    const back = await told('C0HSET', ADMIN, cleared);
    expect(back).toContain('HANDOFF_CLAIM_TIMEOUT_S');
    expect(back).not.toContain('(this office)');
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
