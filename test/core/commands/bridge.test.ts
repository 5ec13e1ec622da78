/** The commands wired into the Bridge, as surfaces call them (through the core harness). */
import { adminOnlyRefusal } from '../../../src/core/access';
import { commandHandlers } from '../../../src/core/commands';
import { COMMAND_SPECS, usageOf } from '../../../src/core/commands/catalogue';
import { LISTINGS_PAGE_ACTION } from '../../../src/core/commands/listings';
import { LISTING_CREATE_FORM } from '../../../src/core/commands/listing';
import { startCoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

const h = useStarted(() => startCoreHarness({ commands: commandHandlers(), storePath: ':memory:', handoffOn: 'none' }));

test('/listings through the bridge, then Next through bridge.action edits the same message', async () => {
  const inv = h.invocation(h.users.alice);
  // All 24 demo listings: more than a page (a city's six fit on one).
  await h.bridge.command(inv, 'listings', '');
  const first = inv.replies[0];
  expect(first?.msg.text).toMatch(/Listings: page 1 of 3/);
  const next = first?.msg.buttons?.find((b) => b.action === LISTINGS_PAGE_ACTION && b.label.includes('Next'));
  if (!next || !first?.ref) throw new Error('expected a Next button on a posted message');
  const click = h.invocation(h.users.alice, h.channel, { source: first.ref });
  await h.bridge.action(click, next.action, next.value);
  expect(click.updates[0]?.text).toMatch(/page 2 of/);
  expect(h.surface.messages.get(first.ref.id)?.current.text).toMatch(/page 2 of/);
});

test('admin-only commands are refused for non-admins; forms reach their handler', async () => {
  const inv = h.invocation(h.users.alice);
  await h.bridge.command(inv, 'chatbot', 'models');
  expect(inv.texts().join('\n')).toMatch(/admins/i);

  const form = h.invocation(h.users.admin);
  const result = await h.bridge.submitForm(form, LISTING_CREATE_FORM, '', { SaleType: 'nope' });
  expect(result.ok).toBe(false);
  expect(result.ok ? '' : result.errors.SaleType).toMatch(/SaleType must be one of/);
});

test('every command of the catalogue is answered: help with its usage for everyone, admin-only ones refused to others', async () => {
  for (const spec of COMMAND_SPECS) {
    const admin = h.invocation(h.users.admin);
    await h.bridge.command(admin, spec.name, 'help');
    expect(admin.texts()).toEqual([usageOf(spec.name)]);

    // Help is for everyone; running an admin-only command is not.
    const alice = h.invocation(h.users.alice);
    await h.bridge.command(alice, spec.name, 'help');
    expect(alice.texts()).toEqual([usageOf(spec.name)]);
    if (!spec.adminOnly) continue;
    const refused = h.invocation(h.users.alice);
    await h.bridge.command(refused, spec.name, '');
    expect(refused.texts()).toEqual([adminOnlyRefusal(spec.name)]);
  }
});
