/**
 * The everyday screens as Discord shows them, on the fake Discord: status in words as a badge, no
 * internal ids or wire values, a city's list on one page, /listing show with its next steps, and
 * /analytics replacing its progress message.
 */
import type { InteractionRecord } from '../../support/fake-discord';
import { ask, responseText, startDiscordE2E, waitForAnswer, type DiscordE2E } from '../../support/discord-e2e';
import { waitFor } from '../../support/wait-for';

describe('Discord: the everyday screens', () => {
  let e: DiscordE2E;
  beforeAll(async () => {
    e = await startDiscordE2E();
  });
  afterAll(async () => {
    await e?.close();
  });

  const STRING = 3;
  const command = (
    name: string,
    opts: { sub?: string; options?: Array<{ name: string; type: number; value: string }>; member?: typeof e.user } = {},
  ): InteractionRecord =>
    e.fake.slashCommand({
      name,
      subcommand: opts.sub,
      options: opts.options,
      channelId: e.general.id,
      member: opts.member ?? e.admin,
    });

  test('/listings city:Miami: one page, each card with its status in words, no ids or wire values', async () => {
    const rec = command('listings', { member: e.user, options: [{ name: 'city', type: STRING, value: 'Miami' }] });
    const msg = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.embeds.length > 0),
      'the Miami list',
      10_000,
      e.fake.changes,
    );
    expect(msg.content).toBe('Listings in Miami: page 1 of 1 (6 listings)');
    expect(e.fake.buttons(msg)).toHaveLength(0);
    const badges = msg.embeds.map((x) => x.description);
    expect(new Set(badges)).toEqual(new Set(['**For sale**', '**For rent**', '**Coming soon**', '**Sold**']));
    expect(JSON.stringify(msg.embeds)).not.toMatch(/PreOnMarket|for_sale|for_rent|ID \d/);
  });

  test('/listing show: every field, photos, and next steps (a viewing; Edit for admins only)', async () => {
    const forUser = command('listing', {
      sub: 'show',
      member: e.user,
      options: [{ name: 'mls', type: STRING, value: 'DEN240007' }],
    });
    const msg = await waitFor(
      () => e.fake.responsesOf(forUser).find((m) => m.embeds.length > 0),
      'the listing',
      10_000,
      e.fake.changes,
    );
    expect(e.fake.buttons(msg).map((b) => b.label)).toEqual(['Ask about a viewing']);
    const text = responseText(e, forUser);
    for (const label of ['Year built', 'Days on market', 'Photo 3']) expect(text).toContain(label);
    const forAdmin = command('listing', { sub: 'show', options: [{ name: 'mls', type: STRING, value: 'DEN240007' }] });
    const adminMsg = await waitFor(
      () => e.fake.responsesOf(forAdmin).find((m) => m.embeds.length > 0),
      'the listing for an admin',
      10_000,
      e.fake.changes,
    );
    expect(e.fake.buttons(adminMsg).map((b) => b.label)).toEqual(['Ask about a viewing', 'Edit']);
  });

  test('an answer that names a listing links it (a Markdown link on the address), with the true price', async () => {
    const question = 'How much is 3096 Larimer St?';
    const { threadId } = await ask(e, question);
    const { messages } = await waitForAnswer(e, threadId, question);
    const shown = messages.map((m) => m.content).join('');
    expect(shown).toContain(
      '[3096 Larimer St, Denver, CO 80201](https://homes.example.com/denver/3096-larimer-st-den240007)',
    );
    expect(shown).toContain('$670,000');
    expect(shown).not.toMatch(/couldn't find anything|passing your question|will reply here shortly/);
  });

  test('/listing create: options named in words in the modals (never wire values), typed back in words and taken', async () => {
    const rec = command('listing', { sub: 'create' });
    const panel = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => e.fake.buttons(m).length > 0),
      'the form panel',
      10_000,
      e.fake.changes,
    );
    const open = (group: string) => {
      const click = e.fake.clickButtonLabelled(panel, group, e.admin);
      return waitFor(() => e.fake.modalOf(click), `the ${group} modal`, 10_000, e.fake.changes);
    };
    const where = await open('Where and how it is offered');
    const input = (id: string) => where.inputs.find((i) => i.custom_id === id);
    expect(input('SaleType')?.placeholder).toBe('One of: For sale | For rent');
    expect(input('SaleType')?.value).toBe('For sale');
    expect(input('Status')?.placeholder).toBe('One of: Active | Coming soon | Sold');
    const listing = await open('Listing');
    expect(listing.inputs.find((i) => i.custom_id === 'Tours')?.placeholder).toBe('One of: Open house | 3D tour');
    expect(JSON.stringify([where, listing])).not.toMatch(/for_sale|for_rent|PreOnMarket|OpenHouse/);
    // The words typed back are taken: a rental coming soon is saved as one.
    e.fake.submitModal({
      customId: where.custom_id,
      channelId: e.general.id,
      member: e.admin,
      message: panel,
      values: { City: 'Boulder', State: 'CO', ZIP: '80302', SaleType: 'For rent', Status: 'coming soon' },
    });
    await waitFor(() => panel.content.includes('\u2705 Where'), 'the group done', 10_000, e.fake.changes);
    e.fake.clickButtonLabelled(panel, 'Create', e.admin);
    await waitFor(() => panel.content.includes('Please fix'), 'the missing fields', 10_000, e.fake.changes);
    // Fields left empty are named; the options typed in words are not among them.
    expect(panel.content).toContain('Bedrooms');
    expect(panel.content).not.toMatch(/\*\*Offered|\*\*Status/);
  });

  test('/analytics: the progress message becomes the figures, named after the chatbot', async () => {
    const rec = command('analytics');
    await waitFor(
      () => (/Conversations: \d/.test(responseText(e, rec)) ? true : undefined),
      'the figures',
      10_000,
      e.fake.changes,
    );
    const shown = responseText(e, rec);
    expect(shown).toContain('Analytics for Skyline Realty Assistant');
    expect(shown).not.toContain('Crunching');
  });
});
