/**
 * Listing links unfurl as Work Objects: `link_shared` for the manifest's unfurl domains
 * (LISTING_UNFURL_DOMAINS) is answered with one chat.unfurl whose `metadata.entities` describe each
 * link that is one of the chatbot's listings (found by its Url), checked by the fake as Slack
 * documents Work Objects; a link that is no listing is left alone; the flexpane
 * (`entity_details_requested`) gets the full listing and its actions (entity.presentDetails). A
 * workspace without Work Objects gets classic unfurl blocks, learnt from its first refusal.
 */
import type { FakeMessage } from '../../../fakes/fake-slack';
import { button } from '../../../fakes/slack-blocks';
import type { Listing } from '../../../src/service/schemas/listings';
import { quote } from '../../../src/core/commands/grammar';
import { listingToText } from '../../../src/core/listings/fields';
import { waitFor } from '../../../fakes/wait-for';
import { ADMIN, HANDOFF_CHANNEL, startSlackE2E, type SlackE2E } from '../../support/slack-e2e';
import { USER_MESSAGES } from '../../../src/core/user-messages';
import { useStarted } from '../../support/server-setup';

const CHANNEL = 'C0LINKS';
const ENV = { LISTING_UNFURL_DOMAINS: 'homes.example.com' };
let seq = 0;

async function austin(e: SlackE2E): Promise<Listing[]> {
  return (await e.app.client.listListings({ chatbotId: e.service.chatbotId, city: 'Austin', page: 1, pageSize: 50 }))
    .items;
}

/** Someone posts `urls` in CHANNEL: Slack's link_shared for them. */
function paste(e: SlackE2E, urls: string[]) {
  seq += 1;
  return e.driver.event({
    type: 'link_shared',
    channel: CHANNEL,
    user: 'U0USER1',
    message_ts: `1790000000.${String(100 + seq).padStart(6, '0')}`,
    source: 'conversations_history',
    unfurl_id: `U${seq}`,
    links: urls.map((url) => ({ domain: new URL(url).hostname, url })),
  });
}

type Entity = {
  app_unfurl_url?: string;
  url: string;
  entity_type: string;
  external_ref: { id: string };
  entity_payload: {
    attributes: { title: { text: string } };
    fields?: { preview?: { image_url?: string; alt_text?: string } };
    custom_fields?: Array<{ key: string; label: string; value?: string }>;
    actions?: { primary_actions?: Array<{ text: string; action_id: string }> };
  };
};

describe('Slack: listing links unfurl as Work Objects', () => {
  const e = useStarted(() => startSlackE2E({ env: ENV }));

  test('a listing link gets a Work Object; a link that is no listing is left alone; the flexpane shows it all', async () => {
    const listing = (await austin(e)).find((l) => l.url && l.images.length > 0)!;
    const other = 'https://homes.example.com/about-us';
    // Pasted as people paste: another case in the host, a trailing slash.
    const posted = `${listing.url!.replace('homes.example.com', 'Homes.Example.com')}/`;
    await paste(e, [posted, other]);
    const unfurl = await waitFor(() => e.fake.unfurls[0], 'the unfurl');
    expect(unfurl.unfurls).toBeUndefined();
    const entities = (unfurl.metadata as { entities: Entity[] }).entities;
    expect(entities).toHaveLength(1);
    const wo = entities[0]!;
    expect(wo.app_unfurl_url).toBe(posted);
    expect(wo.url).toBe(listing.url);
    expect(wo.external_ref.id).toBe(String(listing.id));
    expect(wo.entity_type).toMatch(/^slack#\/entities\//);
    expect(wo.entity_payload.attributes.title.text).toBe(listing.address);
    const facts = Object.fromEntries((wo.entity_payload.custom_fields ?? []).map((f) => [f.label, f.value]));
    expect(Object.keys(facts)).toEqual(['Price', 'Beds / baths', 'Area', 'Status', 'City']);
    expect(facts.Price).toMatch(/^\$[\d,]+/);
    expect(facts['Beds / baths']).toMatch(/bd \/ .* ba/);
    expect(facts.City).toBe('Austin');
    expect(wo.entity_payload.fields?.preview?.image_url).toBe(listing.images[0]);
    expect(e.fake.workObjectProblems).toEqual([]);

    // Only a link that is no listing: nothing is unfurled (the next listing link's unfurl is the second).
    await paste(e, [other]);
    await paste(e, [listing.url!]);
    await waitFor(() => e.fake.unfurls.length >= 2 && e.fake.unfurls, 'the second unfurl');
    expect(e.fake.callsOf('chat.unfurl')).toHaveLength(2);
    expect((e.fake.unfurls[1]!.metadata as { entities: Entity[] }).entities[0]!.app_unfurl_url).toBe(listing.url);

    // The flexpane: the full listing and what one can do about it.
    await e.driver.event({
      type: 'entity_details_requested',
      user: 'U0USER1',
      channel: CHANNEL,
      trigger_id: '123.456.abc',
      external_ref: { id: String(listing.id), type: 'listing' },
      entity_url: listing.url,
      app_unfurl_url: posted,
      link: { url: posted, domain: 'homes.example.com' },
      message_ts: '1790000000.000101',
    });
    const details = await waitFor(() => e.fake.presentedDetails[0], 'the flexpane');
    expect(details.trigger_id).toBe('123.456.abc');
    const full = details.metadata as unknown as Entity;
    expect(full.entity_payload.attributes.title.text).toBe(listing.address);
    expect((full.entity_payload.actions?.primary_actions ?? []).map((a) => a.text)).toEqual([
      'Ask about a viewing',
      'Talk to a human',
    ]);
    // More than the unfurl's five facts: the listing in full.
    expect((full.entity_payload.custom_fields ?? []).length).toBeGreaterThan(5);
    expect(e.fake.workObjectProblems).toEqual([]);

    // A listing that is gone: the flexpane says not found.
    await e.driver.event({
      type: 'entity_details_requested',
      user: 'U0USER1',
      channel: CHANNEL,
      trigger_id: '789.000.def',
      external_ref: { id: '99999999', type: 'listing' },
    });
    const gone = await waitFor(() => e.fake.presentedDetails[1], 'the not-found flexpane');
    expect(gone).toMatchObject({ trigger_id: '789.000.def', error: { status: 'not_found' } });
  }, 60_000);
});

/** `user` opens the flexpane of `listing`'s Work Object: its actions, as Slack got them. */
async function flexpaneActions(e: SlackE2E, listing: Listing, user: string) {
  const n = e.fake.presentedDetails.length;
  await e.driver.event({
    type: 'entity_details_requested',
    user,
    channel: CHANNEL,
    trigger_id: `flex.${user}.${listing.id}`,
    external_ref: { id: String(listing.id), type: 'listing' },
    entity_url: listing.url,
  });
  const details = await waitFor(() => e.fake.presentedDetails[n], 'the flexpane');
  const actions = (details.metadata as unknown as Entity).entity_payload.actions?.primary_actions ?? [];
  const named = (text: string) => {
    const a = actions.find((x) => x.text === text) as { action_id: string; value?: string } | undefined;
    if (!a) throw new Error(`no ${text} in the flexpane`);
    return a;
  };
  return { viewing: named('Ask about a viewing'), human: named('Talk to a human') };
}

describe('Slack: the flexpane’s actions', () => {
  const e = useStarted(() => startSlackE2E({ env: ENV }));
  const tickets = () => e.fake.channelMessages(HANDOFF_CHANNEL).filter((m) => button(m, 'Claim'));

  test('Ask about a viewing starts a conversation about the listing; Talk to a human opens a ticket; a forged id is refused', async () => {
    const [listing, other] = (await austin(e)).filter((l) => l.url);
    const { viewing } = await flexpaneActions(e, listing!, 'U0USER1');
    // Pressed in the flexpane of a link posted in CHANNEL.
    const res = await e.driver.pressEntityAction(
      viewing,
      { id: String(listing!.id), url: listing!.url!, channel: CHANNEL, messageTs: '1790000000.000101' },
      { user: 'U0USER1' },
    );
    expect(res.status).toBe(200);
    const root = await waitFor(
      () => e.fake.channelMessages(CHANNEL).find((m) => m.text.includes('schedule a viewing')),
      'the conversation about the listing',
    );
    expect(root.text).toContain(listing!.address!);
    // The bot answers in it, and an agent is asked to arrange the viewing.
    await waitFor(() => e.fake.replies(CHANNEL, root.ts).length > 0, 'the answer in the thread');
    const first = await waitFor(() => tickets()[0], 'the viewing ticket');
    expect(first.text).toContain(`Viewing request: ${listing!.address!}`);
    await waitFor(
      () => e.fake.ephemerals.find((x) => x.user === 'U0USER1' && /arrange a viewing of/.test(x.text)),
      'the presser told',
    );

    // "Talk to a human" in a flexpane opened outside any conversation: the presser's DM with the app.
    const { human } = await flexpaneActions(e, other!, 'U0USER2');
    await e.driver.pressEntityAction(human, { id: String(other!.id), url: other!.url! }, { user: 'U0USER2' });
    const second = await waitFor(() => tickets()[1], 'the second ticket');
    expect(second.text).toContain(`Asked about ${other!.address!}`);
    const dm = e.fake.channelMessages('U0USER2').find((m) => m.text.includes('talk to someone about'));
    expect(dm?.text).toContain(other!.address!);

    // A forged press: an id that is no listing of this workspace's chatbot. Refused; nothing opened.
    const eph = e.fake.ephemerals.length;
    await e.driver.pressEntityAction(
      { ...human, value: JSON.stringify({ a: 'handoff.linkTalk', v: '99999999' }) },
      { id: '99999999', url: 'https://homes.example.com/listings/nope', channel: CHANNEL },
      { user: 'U0USER1' },
    );
    const refusal = await waitFor(
      () => e.fake.ephemerals.slice(eph).find((x) => x.user === 'U0USER1'),
      'the refusal of a forged press',
    );
    expect(refusal.text).toBe(USER_MESSAGES.notOurListing);
    expect(tickets()).toHaveLength(2);
  }, 90_000);
});

/** The ids of the listings an unfurl's Work Objects name. */
function unfurledIds(u: { metadata?: Record<string, unknown> } | undefined): string[] {
  return ((u?.metadata as { entities?: Entity[] } | undefined)?.entities ?? []).map((x) => x.external_ref.id);
}

describe('Slack: the listing URL index follows the listings', () => {
  const e = useStarted(() => startSlackE2E({ env: ENV }));
  /** The chatbot service's catalogue reads (what a stale or missing index costs). */
  const catalogueReads = (): number => e.serviceCalls.filter((c) => /RealEstateList/.test(c.url)).length;

  /** `urls` pasted; the next unfurl, once Slack got it. */
  async function unfurlOf(urls: string[]) {
    const n = e.fake.unfurls.length;
    await paste(e, urls);
    return waitFor(() => e.fake.unfurls[n], `the unfurl of ${urls.join(', ')}`);
  }

  /** The reply `/listing <args>` got in `channel` (ephemeral or not). */
  async function listingCommand(channel: string, args: string) {
    const before = { eph: e.fake.ephemerals.length, msg: e.fake.messages.length };
    await e.driver.command('/listing', args, { user: ADMIN, channel });
    return waitFor(
      () =>
        e.fake.ephemerals.slice(before.eph).find((m) => m.channel === channel) ??
        e.fake.messages.slice(before.msg).find((m) => m.channel === channel),
      `the reply to /listing ${args}`,
    );
  }

  test('a created listing unfurls at once, an updated one at its new URL, a deleted one no more; a known link costs no catalogue read, after a restart too', async () => {
    const known = (await austin(e)).find((l) => l.url)!;
    const url = 'https://homes.example.com/listings/9-new-lane-austin';
    // Not a listing yet: left out of the unfurl (the known link beside it is the sync point).
    expect(unfurledIds(await unfurlOf([url, known.url!]))).toEqual([String(known.id)]);
    // The index is fresh: the next links cost the chatbot service nothing.
    const reads = catalogueReads();
    expect(unfurledIds(await unfurlOf([known.url!]))).toEqual([String(known.id)]);
    expect(unfurledIds(await unfurlOf([known.url!, url]))).toEqual([String(known.id)]);
    expect(catalogueReads()).toBe(reads);

    // /listing create: the new listing's link unfurls straight away (the index was dropped, read once).
    const pairs = { ...listingToText(known), Address: '9 New Lane', MLSNumber: 'NEW000009', Url: url };
    const args = Object.entries(pairs)
      .filter((kv): kv is [string, string] => typeof kv[1] === 'string' && kv[1] !== '')
      .map(([k, v]) => `${k}:${quote(v)}`)
      .join(' ');
    const created = await listingCommand('C0LISTADM', `create ${args}`);
    const id = /Listing created: ID (\d+)/.exec(created.text)?.[1];
    expect(id).toBeDefined();
    const after = await unfurlOf([url]);
    expect(unfurledIds(after)).toEqual([id]);
    expect((after.metadata as { entities: Entity[] }).entities[0]!.entity_payload.attributes.title.text).toContain(
      '9 New Lane',
    );
    expect(catalogueReads()).toBe(reads + 1);
    expect(unfurledIds(await unfurlOf([url]))).toEqual([id]);
    expect(catalogueReads()).toBe(reads + 1);

    // /listing update moves it to another page: the old link is no listing, the new one is.
    const moved = 'https://homes.example.com/listings/9-new-lane-austin-tx';
    const updated = await listingCommand('C0LISTADM', `update id:${id} Url:${moved}`);
    expect(updated.text).toMatch(/^Updated 1 listing/);
    expect(unfurledIds(await unfurlOf([url, moved]))).toEqual([id]);
    expect((e.fake.unfurls.at(-1)!.metadata as { entities: Entity[] }).entities[0]!.app_unfurl_url).toBe(moved);

    // /listing delete (confirmed): its link is no listing any more.
    const confirm = await listingCommand('C0LISTADM', `delete id:${id}`);
    await e.driver.click(
      button(confirm as unknown as FakeMessage, 'Delete')!,
      { channel: 'C0LISTADM', messageTs: '1790000001.000100', ephemeral: true, responseUrl: e.fake.responseUrl('del') },
      { user: ADMIN },
    );
    await waitFor(() => e.fake.responses.find((r) => r.id === 'del'), 'the deletion confirmed');
    expect(unfurledIds(await unfurlOf([moved, known.url!]))).toEqual([String(known.id)]);

    // A restart finds the index in the store: the next link costs no catalogue read either.
    const settled = catalogueReads();
    await e.restart!();
    expect(unfurledIds(await unfurlOf([known.url!, moved]))).toEqual([String(known.id)]);
    expect(catalogueReads()).toBe(settled);
  }, 90_000);
});

describe('Slack: a workspace without Work Objects gets classic unfurls', () => {
  const e = useStarted(() => startSlackE2E({ env: ENV, fake: { workObjects: 'off' } }));

  test('refused once, then classic unfurl blocks straight away', async () => {
    const [first, second] = (await austin(e)).filter((l) => l.url);
    await paste(e, [first!.url!]);
    const classic = await waitFor(() => e.fake.unfurls[0], 'the classic unfurl');
    expect(classic.metadata).toBeUndefined();
    const blocks = JSON.stringify((classic.unfurls as Record<string, { blocks: unknown[] }>)[first!.url!]!.blocks);
    expect(blocks).toContain(first!.address!);
    const refused = e.fake.callsOf('chat.unfurl').filter((c) => c.response.error === 'feature_not_enabled');
    expect(refused).toHaveLength(1);
    // Learnt: the next link goes as blocks at once (no second refusal).
    await paste(e, [second!.url!]);
    await waitFor(() => e.fake.unfurls[1], 'the second classic unfurl');
    expect(e.fake.callsOf('chat.unfurl')).toHaveLength(3);
    expect(e.fake.unfurls[1]!.unfurls).toBeDefined();
  }, 60_000);
});
