import type { FakeMessage, InteractionRecord } from '../../../fakes/fake-discord';
import { containersOf, IS_COMPONENTS_V2, shownText } from '../../../fakes/fake-discord-cv2';
import { responseText, startDiscordE2E } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { textMatching } from '../../support/discord-flows';

describe('Discord: every command', () => {
  const e = useStarted(() => startDiscordE2E());

  const STRING = 3;
  const INTEGER = 4;

  function command(
    name: string,
    opts: {
      sub?: string;
      options?: Array<{ name: string; type: number; value: string | number }>;
      member?: typeof e.user;
      channelId?: string;
    } = {},
  ): InteractionRecord {
    return e.fake.slashCommand({
      name,
      subcommand: opts.sub,
      options: opts.options,
      channelId: opts.channelId ?? e.general.id,
      member: opts.member ?? e.admin,
    });
  }

  /** `read()` once it matches `pattern`. */
  const once = (read: () => string, pattern: RegExp | string, what: string): Promise<string> =>
    textMatching(e, read, pattern, what, 10_000);

  async function firstResponse(rec: InteractionRecord, what: string): Promise<FakeMessage> {
    return waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.content !== '' || m.embeds.length > 0 || m.components.length > 0),
      what,
      10_000,
      e.fake.changes,
    );
  }

  test('/listings shows cards with address, MLS and link; Next and Prev edit the same message', async () => {
    const rec = command('listings', { member: e.user });
    const msg = await firstResponse(rec, 'the listings page');
    expect(msg.ephemeral).toBe(false);
    // Components V2: a container per listing (address linked, MLS), the page's buttons under them.
    expect(msg.flags & IS_COMPONENTS_V2).toBe(IS_COMPONENTS_V2);
    expect(shownText(msg)).toMatch(/page 1 of \d+/);
    expect(containersOf(msg).length).toBe(5);
    expect(shownText(msg)).toMatch(/### \[[^\]]+\]\(https:\/\/[^)]+\)/);
    expect(shownText(msg)).toContain('MLS ');
    const pageButtons = () => e.fake.buttons(msg).filter((b) => /Prev|Next/.test(String(b.label)));
    expect(pageButtons().map((b) => b.label)).toEqual(['Next ▶']);
    const next = e.fake.clickButtonLabelled(msg, 'Next ▶', e.user);
    expect(await once(() => shownText(msg), /page 2 of/, 'page 2 on the same message')).toMatch(/page 2 of \d+/);
    expect(next.callbacks[0]!.type === 6 || next.callbacks[0]!.type === 7).toBe(true);
    expect(pageButtons().map((b) => b.label)).toContain('◀ Prev');
    e.fake.clickButtonLabelled(msg, '◀ Prev', e.user);
    expect(await once(() => shownText(msg), /page 1 of/, 'page 1 again on the same message')).toMatch(/page 1 of \d+/);
    expect(pageButtons().map((b) => b.label)).toEqual(['Next ▶']);
    expect(e.fake.responsesOf(rec)).toHaveLength(1);
  });

  test('/listings with city, type and page options filters', async () => {
    const rec = command('listings', {
      member: e.user,
      options: [
        { name: 'city', type: STRING, value: 'Austin' },
        { name: 'type', type: STRING, value: 'for_sale' },
        { name: 'page', type: INTEGER, value: 1 },
      ],
    });
    const msg = await firstResponse(rec, 'filtered listings');
    expect(shownText(msg)).toContain('in Austin, for sale');
    expect(containersOf(msg).length).toBeGreaterThan(0);
    for (const c of containersOf(msg)) expect(shownText({ content: '', components: [c] })).toContain('Austin');
  });

  test('/listing show by MLS number', async () => {
    const row = e.service.context.db
      .prepare(`SELECT mls_number AS mls FROM listings WHERE mls_number IS NOT NULL LIMIT 1`)
      .get() as { mls: string } | undefined;
    expect(row).toBeDefined();
    const rec = command('listing', {
      sub: 'show',
      member: e.user,
      options: [{ name: 'mls', type: STRING, value: row!.mls }],
    });
    const text = await waitFor(
      () => (e.fake.responsesOf(rec).length > 0 ? responseText(e, rec) : undefined),
      'the listing',
      10_000,
      e.fake.changes,
    );
    expect(text).toContain(row!.mls);
  });

  test('a member without an admin role is refused ephemerally', async () => {
    const rec = command('chatbot', { sub: 'show', member: e.user });
    const msg = await firstResponse(rec, 'the refusal');
    expect(msg.ephemeral).toBe(true);
    expect(msg.content.toLowerCase()).toContain('admin');
    const del = command('listing', {
      sub: 'delete',
      member: e.agent,
      options: [{ name: 'id', type: STRING, value: '1' }],
    });
    const refusal = await firstResponse(del, 'the delete refusal');
    expect(refusal.ephemeral).toBe(true);
    expect(refusal.content.toLowerCase()).toContain('admin');
  });

  test('/chatbot set, show and models for an admin', async () => {
    const set = command('chatbot', {
      sub: 'set',
      options: [
        { name: 'field', type: STRING, value: 'WelcomeMessage' },
        { name: 'value', type: STRING, value: 'Hello from Discord' },
      ],
    });
    expect((await firstResponse(set, 'the set reply')).content).toContain('WelcomeMessage');
    const show = command('chatbot', { sub: 'show' });
    expect(await once(() => responseText(e, show), 'Hello from Discord', 'the setting in /chatbot show')).toMatch(
      /Welcome message: Hello from Discord/,
    );
    const models = command('chatbot', { sub: 'models' });
    expect((await firstResponse(models, 'the models')).content).toMatch(/Models/);
    const bad = command('chatbot', {
      sub: 'set',
      options: [
        { name: 'field', type: STRING, value: 'Temperature' },
        { name: 'value', type: STRING, value: 'hot' },
      ],
    });
    const refusal = await firstResponse(bad, 'the refusal of a bad value');
    expect(refusal.content).toContain('Temperature');
  });

  test('/chatbot list and create (the /v1 family)', async () => {
    const create = command('chatbot', {
      sub: 'create',
      options: [{ name: 'name', type: STRING, value: 'Discord Bot One' }],
    });
    const created = await once(() => responseText(e, create), 'Discord Bot One', 'the created chatbot');
    expect(created).toMatch(/created/i);
    const list = command('chatbot', { sub: 'list' });
    const listed = await once(() => responseText(e, list), 'Discord Bot One', 'the chatbot in the list');
    expect(listed.split('\n').filter((l) => l.includes('Discord Bot One'))).toHaveLength(1);
  });

  test('/listing create opens the form in modal groups of selects and inputs; invalid values come back naming the fields', async () => {
    const rec = command('listing', { sub: 'create' });
    const panel = await firstResponse(rec, 'the form panel');
    expect(panel.ephemeral).toBe(true);
    const labels = e.fake.buttons(panel).map((b) => b.label);
    // Grouped as an agent fills a listing: the home first.
    expect(labels).toEqual(expect.arrayContaining(['The home', 'Where and how it is offered', 'Create', 'Cancel']));
    const open = e.fake.clickButtonLabelled(panel, 'The home', e.admin);
    const modal = await waitFor(() => e.fake.modalOf(open), 'the first modal', 10_000, e.fake.changes);
    expect(modal.inputs.length).toBeLessThanOrEqual(5);
    expect(modal.inputs.map((i) => i.custom_id)).toEqual([
      'Address',
      'SalePrice',
      'PropertyType',
      'Bedrooms',
      'Bathrooms',
    ]);
    // A field with a fixed set of values is a string select in its Label, never typed text.
    const propertyType = modal.inputs.find((i) => i.custom_id === 'PropertyType')!;
    expect(propertyType.type).toBe(3);
    expect(propertyType.options?.map((o) => o.label)).toEqual(expect.arrayContaining(['House', 'Condo']));
    e.fake.submitModal({
      customId: modal.custom_id,
      channelId: e.general.id,
      member: e.admin,
      message: panel,
      values: { Address: '1 Discord Way', SalePrice: '500000', Bedrooms: 'many', Bathrooms: '2' },
      selects: { PropertyType: ['Condo'] },
    });
    expect(await once(() => panel.content, '\u2705 The home', 'the panel marking the first group done')).not.toContain(
      '\u2705 Where and how it is offered',
    );
    const openWhere = e.fake.clickButtonLabelled(panel, 'Where and how it is offered', e.admin);
    const whereModal = await waitFor(() => e.fake.modalOf(openWhere), 'the second modal', 10_000, e.fake.changes);
    const byId = new Map(whereModal.inputs.map((i) => [i.custom_id, i]));
    // Sale type and status: the schema's values, in words, the new listing's defaults picked.
    expect(byId.get('SaleType')).toMatchObject({ type: 3 });
    expect(byId.get('SaleType')?.options).toEqual([
      { label: 'For sale', value: 'for_sale', default: true },
      { label: 'For rent', value: 'for_rent', default: false },
    ]);
    expect(byId.get('Status')?.options?.map((o) => o.value)).toEqual(['Active', 'PreOnMarket', 'Sold']);
    e.fake.submitModal({
      customId: whereModal.custom_id,
      channelId: e.general.id,
      member: e.admin,
      message: panel,
      values: { City: 'Austin', State: 'TX', ZIP: '78701' },
      selects: { SaleType: ['for_rent'], Status: ['PreOnMarket'] },
    });
    expect(
      await once(() => panel.content, '\u2705 Where and how it is offered', 'the panel marking the second group done'),
    ).toContain('\u2705 The home');
    e.fake.clickButtonLabelled(panel, 'Create', e.admin);
    const errors = await once(() => panel.content, 'Please fix', 'the errors on the panel');
    expect(errors).not.toContain('SaleType');
    expect(errors).toContain('Bedrooms');
    expect(errors).not.toContain('Address');
    expect(panel.ephemeral).toBe(true);
  });

  test('/chatbot edit: the settings in modal groups of at most 5; a valid change is saved', async () => {
    const rec = command('chatbot', { sub: 'edit' });
    const panel = await firstResponse(rec, 'the settings panel');
    const groups = e.fake.buttons(panel).filter((b) => b.label !== 'Save' && b.label !== 'Cancel');
    expect(groups.length).toBeGreaterThanOrEqual(8);
    const open = e.fake.clickButton({ message: panel, customId: groups[0]!.custom_id!, member: e.admin });
    const modal = await waitFor(() => e.fake.modalOf(open), 'the first settings modal', 10_000, e.fake.changes);
    expect(modal.inputs.length).toBeLessThanOrEqual(5);
    expect(modal.inputs.map((i) => i.custom_id)).toContain('Name');
    // Typed settings are text inputs; a setting with a fixed set of values (a model) is a select,
    // left as it was (its current value picked).
    const values = Object.fromEntries(
      modal.inputs.filter((i) => i.type === 4).map((i) => [i.custom_id, i.value ?? '']),
    );
    values.Name = 'Discord Edited Bot';
    e.fake.submitModal({ customId: modal.custom_id, channelId: e.general.id, member: e.admin, message: panel, values });
    expect(await once(() => panel.content, '\u2705', 'the group marked done')).toContain(`\u2705 ${groups[0]!.label}`);
    const save = e.fake.clickButtonLabelled(panel, 'Save', e.admin);
    expect(
      await once(() => `${responseText(e, save)}\n${panel.content}`, /Name|saved|updated/i, 'the saved settings'),
    ).toMatch(/Name|saved|updated/i);
    const show = command('chatbot', { sub: 'show' });
    expect(await once(() => responseText(e, show), 'Discord Edited Bot', 'the new name in /chatbot show')).toMatch(
      /Name\W+Discord Edited Bot/,
    );
  });

  test('/listing delete asks to confirm; Cancel keeps the listing', async () => {
    const row = e.service.context.db
      .prepare(`SELECT mls_number AS mls FROM listings WHERE mls_number IS NOT NULL LIMIT 1 OFFSET 2`)
      .get() as { mls: string };
    const rec = command('listing', { sub: 'delete', options: [{ name: 'mls', type: STRING, value: row.mls }] });
    const msg = await firstResponse(rec, 'the confirmation');
    expect(e.fake.buttons(msg).map((b) => b.label)).toEqual(['Delete', 'Cancel']);
    e.fake.clickButtonLabelled(msg, 'Cancel', e.admin);
    const labelsAfter = await waitFor(
      () => (e.fake.buttons(msg).length === 0 || e.fake.responsesOf(rec).length > 1 ? e.fake.buttons(msg) : undefined),
      'the cancellation',
      10_000,
      e.fake.changes,
    );
    expect(labelsAfter.map((b) => b.label)).not.toContain('Delete');
    const still = e.service.context.db
      .prepare(`SELECT COUNT(*) AS n FROM listings WHERE mls_number = ?`)
      .get(row.mls) as { n: number };
    expect(still.n).toBe(1);
  });

  test('/analytics answers with figures and the chart PNG as an attachment', async () => {
    const rec = command('analytics', {
      options: [
        { name: 'from', type: STRING, value: '2024-01-01' },
        { name: 'to', type: STRING, value: '2030-12-31' },
      ],
    });
    const withFile = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.attachments.length > 0),
      'the chart',
      15_000,
      e.fake.changes,
    );
    expect(withFile.attachments[0]!.filename).toMatch(/\.png$/);
    expect(withFile.attachments[0]!.data?.subarray(1, 4).toString()).toBe('PNG');
  });

  test('/history answers an admin', async () => {
    const rec = command('history', { options: [{ name: 'id', type: STRING, value: `user:${e.user.user.id}` }] });
    const msg = await firstResponse(rec, 'the history');
    expect(msg.content.length).toBeGreaterThan(0);
    const refused = command('history', { member: e.user });
    expect((await firstResponse(refused, 'the history refusal')).content.toLowerCase()).toContain('admin');
  });
});
