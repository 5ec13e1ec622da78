import { startCoreHarness, type CoreHarness } from '../support/core-harness';
import type { CommandHandler } from '../../src/core/context';

describe('Bridge dispatch', () => {
  let h: CoreHarness;
  const ran: string[] = [];
  const adminCommand: CommandHandler = {
    async run(_ctx, inv, args) {
      ran.push(args);
      await inv.reply({ text: 'figures' }, { ephemeral: true });
    },
    actions: {
      'analytics.refresh': async (_ctx, inv) => {
        ran.push('refresh');
        await inv.reply({ text: 'refreshed' }, { ephemeral: true });
      },
    },
    forms: {
      'analytics.range': async () => ({ ok: false, errors: { from: 'bad date' } }),
    },
  };
  const broken: CommandHandler = {
    async run() {
      throw new Error('the listing service fell over');
    },
  };

  beforeAll(async () => {
    h = await startCoreHarness({ commands: { analytics: adminCommand, listings: broken } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers help with the usage', async () => {
    const inv = h.invocation(h.users.alice);
    await h.bridge.command(inv, 'analytics', 'help');
    await h.bridge.command(inv, 'handoff', 'help');
    expect(inv.replies.map((r) => [r.ephemeral, r.msg.text.split('\n')[0]])).toEqual([
      [true, 'Usage: /analytics [from] [to]   (admins)'],
      [true, 'Usage: /handoff [reason]   hand the current conversation to a human'],
    ]);
  });

  it('refuses admin-only commands, their buttons and forms to non-admins', async () => {
    const inv = h.invocation(h.users.alice);
    await h.bridge.command(inv, 'analytics', '2024-01-01');
    await h.bridge.action(inv, 'analytics.refresh', '');
    const form = await h.bridge.submitForm(inv, 'analytics.range', '', { from: 'x' });
    expect(ran).toEqual([]);
    expect(form).toEqual({ ok: true });
    expect(inv.replies).toHaveLength(3);
    expect(inv.replies.every((r) => r.ephemeral && /admins only/.test(r.msg.text))).toBe(true);

    const admin = h.invocation(h.users.admin);
    await h.bridge.command(admin, 'analytics', '2024-01-01');
    await h.bridge.action(admin, 'analytics.refresh', '');
    expect(await h.bridge.submitForm(admin, 'analytics.range', '', {})).toEqual({
      ok: false,
      errors: { from: 'bad date' },
    });
    expect(ran).toEqual(['2024-01-01', 'refresh']);
  });

  it('never throws to the surface: a failing handler becomes an ephemeral message, by reference', async () => {
    const inv = h.invocation(h.users.alice);
    await expect(h.bridge.command(inv, 'listings', '')).resolves.toBeUndefined();
    expect(inv.replies[0]?.ephemeral).toBe(true);
    // The handler's own words are internal: the person gets a reference the log holds beside them.
    expect(inv.replies[0]?.msg.text).toMatch(/Something went wrong \(ref [0-9a-f]{4}\)/);
    expect(inv.replies[0]?.msg.text).not.toContain('the listing service fell over');
  });

  it('says which commands exist when one is not installed, and that unknown forms expired', async () => {
    const inv = h.invocation(h.users.admin);
    await h.bridge.command(inv, 'history', '');
    expect(inv.replies[0]?.msg.text).toMatch(/not available/);
    await h.bridge.submitForm(inv, 'nope.form', '', {});
    expect(inv.replies[1]?.msg.text).toMatch(/expired/);
  });
});

describe('Bridge dispatch: one guard pipeline', () => {
  let h: CoreHarness;
  const saved: string[] = [];
  const withForm: CommandHandler = {
    async run() {},
    forms: {
      'chatbot.settings': async (_ctx, _inv, _state, values) => {
        saved.push(values.name ?? '');
        return { ok: true };
      },
    },
  };

  beforeAll(async () => {
    h = await startCoreHarness({ userRateLimit: 2, commands: { chatbot: withForm } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('flood-limits form submits like commands and button presses', async () => {
    const inv = h.invocation(h.users.admin);
    for (const name of ['one', 'two', 'three'])
      expect(await h.bridge.submitForm(inv, 'chatbot.settings', '', { name })).toEqual({ ok: true });
    // The third went over USER_RATE_LIMIT (2 a minute): the person is told, the handler never ran.
    expect(saved).toEqual(['one', 'two']);
    expect(inv.texts()).toEqual([expect.stringMatching(/^You are going too fast: at most 2 /)]);
  });
});
