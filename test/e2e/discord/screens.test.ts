/**
 * The everyday screens as Discord shows them, on the fake Discord: status in words as a badge, no
 * internal ids or wire values, a city's list on one page, /listing show with its next steps, and
 * /analytics replacing its progress message.
 */
import { componentsV2Problem, containersOf, IS_COMPONENTS_V2, shownText } from '../../../fakes/fake-discord-cv2';
import type { InteractionRecord } from '../../../fakes/fake-discord';
import { ask, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { textMatching } from '../../support/discord-flows';

describe('Discord: the everyday screens', () => {
  const e = useStarted(() => startDiscordE2E());

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

  test('/listings city:Miami: Components V2 within the limits, a container per listing with its photo, status in words, no ids or wire values', async () => {
    const rec = command('listings', { member: e.user, options: [{ name: 'city', type: STRING, value: 'Miami' }] });
    const msg = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => containersOf(m).length > 0),
      'the Miami list',
      10_000,
      e.fake.changes,
    );
    expect(msg.flags & IS_COMPONENTS_V2).toBe(IS_COMPONENTS_V2);
    expect(msg.content).toBe('');
    expect(msg.embeds).toHaveLength(0);
    // Five listings a page on Discord: one message within 40 components and 4,000 characters.
    expect(shownText(msg).split('\n')[0]).toBe('Listings in Miami: page 1 of 2 (6 listings)');
    expect(componentsV2Problem(msg as unknown as Record<string, unknown>, msg.flags)).toBeUndefined();
    const containers = containersOf(msg);
    expect(containers).toHaveLength(5);
    for (const c of containers) {
      const section = (c.components as Array<Record<string, unknown>>).find((x) => x.type === 9);
      expect((section?.accessory as { type?: number } | undefined)?.type).toBe(11);
      const labels = e.fake.buttons({ ...msg, components: [c] } as typeof msg).map((b) => b.label);
      expect(labels).toEqual(['Details', 'Ask about a viewing']);
    }
    const text = shownText(msg);
    expect(text).toMatch(/For sale|For rent|Coming soon|Sold/);
    expect(text).not.toMatch(/PreOnMarket|for_sale|for_rent|ID \d/);
  });

  test('/listing show: one container, a gallery of the photos, facts grouped, next steps (a viewing; Edit for admins only)', async () => {
    const forUser = command('listing', {
      sub: 'show',
      member: e.user,
      options: [{ name: 'mls', type: STRING, value: 'DEN240007' }],
    });
    const msg = await waitFor(
      () => e.fake.responsesOf(forUser).find((m) => containersOf(m).length > 0),
      'the listing',
      10_000,
      e.fake.changes,
    );
    expect(msg.flags & IS_COMPONENTS_V2).toBe(IS_COMPONENTS_V2);
    expect(e.fake.buttons(msg).map((b) => b.label)).toEqual(['Ask about a viewing']);
    const [container] = containersOf(msg);
    const gallery = (container!.components as Array<{ type: number; items?: Array<{ media: { url: string } }> }>).find(
      (x) => x.type === 12,
    );
    expect(gallery?.items?.length).toBeGreaterThanOrEqual(2);
    expect(gallery?.items?.length).toBeLessThanOrEqual(4);
    const text = responseText(e, forUser);
    for (const label of ['Year built', 'Days on market', 'Price and size', 'The home', 'The neighbourhood', 'Links'])
      expect(text).toContain(label);
    // No photo URL nor coordinates as facts: the map is a link.
    expect(text).not.toMatch(/Photo \d:|\.jpg|\d+\.\d{3,}, -?\d+\.\d{3,}/);
    expect(text).toMatch(/\[Map\]\(https:\/\/www\.google\.com\/maps\/search\//);
    const forAdmin = command('listing', { sub: 'show', options: [{ name: 'mls', type: STRING, value: 'DEN240007' }] });
    const adminMsg = await waitFor(
      () => e.fake.responsesOf(forAdmin).find((m) => containersOf(m).length > 0),
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
    // With the final edit, the listing it names follows as Components V2: its container, its photo.
    const cards = await waitFor(
      () => e.fake.channelMessages(threadId).find((m) => containersOf(m).length > 0),
      'the named listing as a container',
      10_000,
      e.fake.changes,
    );
    expect(cards.flags & IS_COMPONENTS_V2).toBe(IS_COMPONENTS_V2);
    expect(componentsV2Problem(cards as unknown as Record<string, unknown>, cards.flags)).toBeUndefined();
    expect(shownText(cards)).toContain('3096 Larimer St');
    // The answer's own messages keep its exact text (the cards are a message of their own).
    expect(messages.every((m) => (m.flags & IS_COMPONENTS_V2) === 0)).toBe(true);
  });

  test('/listing create: options named in words in the modals’ selects (never wire values), picked and taken', async () => {
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
    // A string select in its Label: the words shown, the new listing's default picked.
    expect(input('SaleType')?.type).toBe(3);
    expect(input('SaleType')?.options?.map((o) => o.label)).toEqual(['For sale', 'For rent']);
    expect(input('SaleType')?.options?.find((o) => o.default)?.label).toBe('For sale');
    expect(input('Status')?.options?.map((o) => o.label)).toEqual(['Active', 'Coming soon', 'Sold']);
    const listing = await open('Listing');
    const tours = listing.inputs.find((i) => i.custom_id === 'Tours');
    expect(tours).toMatchObject({ type: 3, required: false, min_values: 0 });
    expect(tours?.options?.map((o) => o.label)).toEqual(['Open house', '3D tour']);
    const shownWords = [where, listing].flatMap((m) =>
      m.inputs.flatMap((i) => [i.label, i.placeholder ?? '', ...(i.options ?? []).map((o) => o.label)]),
    );
    expect(shownWords.join(' ')).not.toMatch(/for_sale|for_rent|PreOnMarket|OpenHouse/);
    // The options picked are taken: a rental coming soon is saved as one.
    e.fake.submitModal({
      customId: where.custom_id,
      channelId: e.general.id,
      member: e.admin,
      message: panel,
      values: { City: 'Boulder', State: 'CO', ZIP: '80302' },
      selects: { SaleType: ['for_rent'], Status: ['PreOnMarket'] },
    });
    expect(await textMatching(e, () => panel.content, '\u2705 Where', 'the group done', 10_000)).toContain(
      '\u2705 Where and how it is offered',
    );
    e.fake.clickButtonLabelled(panel, 'Create', e.admin);
    const missing = await textMatching(e, () => panel.content, 'Please fix', 'the missing fields', 10_000);
    // Fields left empty are named; the options picked are not among them.
    expect(missing).toContain('Bedrooms');
    expect(missing).not.toMatch(/\*\*Offered|\*\*Status/);
  });

  test('/analytics: the progress message becomes the figures, named after the chatbot', async () => {
    const rec = command('analytics');
    const shown = await textMatching(e, () => responseText(e, rec), /Conversations: \d/, 'the figures', 10_000);
    expect(shown).toContain('Analytics for Skyline Realty Assistant');
    expect(shown).not.toContain('Crunching');
  });
});
