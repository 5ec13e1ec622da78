/**
 * A listing link's actions on a deployment many workspaces install (OAuth): workspace A connected a
 * chatbot of its own, with a listing the deployment's shared chatbot (B's) does not have. A user of
 * B who replays the action of A's flexpane ("Talk to a human", "Ask about a viewing", the listing's
 * id as its value) through B's installation is refused with the one line: no conversation is started,
 * no ticket opened, and nothing of A's listing is shown in B. B's flexpane request for A's listing
 * finds nothing either.
 */
import { waitFor, type SlackDriver } from '../../../fakes/slack-requests';
import { coerceListingValues, listingToText, validateListing } from '../../../src/core/listings/fields';
import { USER_MESSAGES } from '../../../src/core/user-messages';
import { useStarted } from '../../support/server-setup';
import { ADMIN } from '../../support/slack-e2e';
import { install, startOAuthE2E } from '../../support/slack-oauth';

type Action = { text: string; action_id: string; value?: string };

describe('Slack OAuth: a listing link’s actions answer only for the presser’s own chatbot', () => {
  const e = useStarted(() => startOAuthE2E({ env: { LISTING_UNFURL_DOMAINS: 'homes.example.com' } }));
  let a: SlackDriver;
  let b: SlackDriver;

  /** `user` of `d`'s workspace opens the flexpane of listing `id`: what entity.presentDetails got. */
  async function flexpane(d: SlackDriver, channel: string, user: string, id: string) {
    const n = e.fake.presentedDetails.length;
    await d.event({
      type: 'entity_details_requested',
      user,
      channel,
      trigger_id: `flex.${user}.${id}`,
      external_ref: { id, type: 'listing' },
      entity_url: 'https://homes.example.com/a-only/77-own-street',
    });
    return waitFor(() => e.fake.presentedDetails[n], `the flexpane in ${channel}`);
  }

  test('B replays A’s flexpane actions: refused with the one line, nothing started, nothing of A’s shown', async () => {
    e.fake.workspaces.addChannels('T0AAA', 'C0AAA', 'C0ADMA');
    e.fake.workspaces.addChannels('T0BBB', 'C0BBB');
    a = (await install(e, { team: 'T0AAA', teamName: 'Office A', user: 'U0USER1' })).driver;
    b = (await install(e, { team: 'T0BBB', teamName: 'Office B', user: 'U0USER2' })).driver;

    // A connects a chatbot of its own (the /chatbot connect form) and lists a home there only.
    const bot = await e.app.client.v1.createChatbot({ name: 'Office A chatbot' });
    const views = e.fake.views.length;
    await a.command('/chatbot', 'connect', { user: ADMIN, channel: 'C0ADMA' });
    const form = await waitFor(() => e.fake.views[views], 'the connect form');
    const { secretKey, sessionKey } = e.service.credentials;
    await a.submitView(
      form,
      { chatbotId: bot.id, secretKey, sessionKey, ...(bot.apiKey ? { apiKey: bot.apiKey } : {}) },
      { user: ADMIN },
    );
    await waitFor(
      () => e.fake.ephemerals.find((x) => x.channel === 'C0ADMA' && x.text.includes('Connected')),
      'A connected',
    );
    const shared = await e.app.client.listListings({ chatbotId: e.service.chatbotId, page: 1, pageSize: 50 });
    const base = listingToText(shared.items.find((l) => l.url)!);
    const raw = Object.fromEntries(
      Object.entries(base).filter((kv): kv is [string, string] => typeof kv[1] === 'string' && kv[1] !== ''),
    );
    const made = validateListing(
      bot.id,
      coerceListingValues({
        ...raw,
        Address: '77 Own Street',
        MLSNumber: 'OWN000077',
        Url: 'https://homes.example.com/a-only/77-own-street',
      }).values,
    );
    if (!made.ok) throw new Error(JSON.stringify(made.errors));
    const id = await e.app.client.createListing(made.body);

    // A's flexpane: the listing and its actions, valued by the listing's id.
    const details = await flexpane(a, 'C0AAA', 'U0USER1', String(id));
    const actions = (details.metadata as { entity_payload: { actions?: { primary_actions?: Action[] } } } | undefined)
      ?.entity_payload.actions?.primary_actions;
    expect(actions?.map((x) => x.text)).toEqual(['Ask about a viewing', 'Talk to a human']);

    // B's flexpane request for A's listing finds nothing.
    expect(await flexpane(b, 'C0BBB', 'U0USER2', String(id))).toMatchObject({ error: { status: 'not_found' } });

    // B's user replays each of A's actions through B's installation.
    const from = { eph: e.fake.ephemerals.length, msg: e.fake.messages.length, service: e.serviceCalls.length };
    for (const action of actions!) {
      const before = e.fake.ephemerals.length;
      const res = await b.pressEntityAction(
        action,
        { id: String(id), url: 'https://homes.example.com/a-only/77-own-street', channel: 'C0BBB' },
        { user: 'U0USER2' },
      );
      expect(res.status).toBe(200);
      const told = await waitFor(
        () => e.fake.ephemerals.slice(before).find((x) => x.user === 'U0USER2'),
        `the refusal of ${action.text}`,
      );
      expect(told.text).toBe(USER_MESSAGES.notOurListing);
    }
    // Nothing started in B (no conversation root, no ticket) and nothing of A's listing shown there.
    expect(e.fake.messages.slice(from.msg)).toEqual([]);
    const shownInB = e.fake.ephemerals.slice(from.eph).map((x) => `${x.text}${JSON.stringify(x.blocks ?? [])}`);
    expect(shownInB.join('\n')).not.toContain('Own Street');
    // No conversation was opened with the chatbot service for it.
    expect(e.serviceCalls.slice(from.service).filter((c) => /Conversation|Session|Ask|Chat\b/i.test(c.url))).toEqual(
      [],
    );
  }, 90_000);
});
