import { chatbotCommand, CHATBOT_EDIT_FORM } from '../../../src/core/commands/chatbot';
import { usageOf } from '../../../src/core/commands/catalogue';
import { appliedSettingsKey, readAppliedSettings } from '../../../src/core/settings/applied';
import { SETTING_FIELDS } from '../../../src/service/schemas/settings';
import { startCommandEnv } from './support';
import { useStarted } from '../../support/server-setup';

const env = useStarted(() => startCommandEnv());

const applied = (): Promise<Record<string, unknown>> =>
  env.scope().then((s) => readAppliedSettings(s)) as Promise<Record<string, unknown>>;

test('non-admins are refused for every subcommand', async () => {
  for (const args of ['show', 'set Temperature 1', 'edit', 'models', 'list', 'create Sneaky']) {
    const inv = await env.run(chatbotCommand, env.alice, args);
    expect(inv.replies).toHaveLength(1);
    expect(inv.replies[0]?.ephemeral).toBe(true);
    expect(inv.last().text).toMatch(/only admins may manage the chatbot/i);
    expect(inv.forms).toHaveLength(0);
  }
  expect(await applied()).toEqual({});
});

test('help and unknown subcommands answer the usage', async () => {
  expect((await env.run(chatbotCommand, env.admin, 'help')).last().text).toBe(usageOf('chatbot'));
  const bad = await env.run(chatbotCommand, env.admin, 'reboot');
  expect(bad.last().text).toMatch(/Unknown subcommand "reboot"/);
  expect(bad.last().text).toContain(usageOf('chatbot'));
});

describe('set', () => {
  test('integer, boolean, colour and text values are applied and remembered', async () => {
    expect((await env.run(chatbotCommand, env.admin, 'set Temperature 1')).last().text).toBe('Set Temperature to 1.');
    expect((await env.run(chatbotCommand, env.admin, 'set enableuploadimage yes')).last().text).toBe(
      'Set EnableUploadImage to yes.',
    );
    expect((await env.run(chatbotCommand, env.admin, 'set RemoveChatLogOnBrowserClose false')).last().text).toBe(
      'Set RemoveChatLogOnBrowserClose to no.',
    );
    expect((await env.run(chatbotCommand, env.admin, 'set ChatBubbleColor rgb(37, 99, 235)')).last().text).toMatch(
      /Set ChatBubbleColor to rgb\(37, ?99, ?235\)\./,
    );
    await env.run(chatbotCommand, env.admin, 'set TalkToHumanResponseMessage "A human will be with you shortly."');
    await env.run(chatbotCommand, env.admin, 'set SystemMessage You are a helpful "real estate" assistant.');
    const a = await applied();
    expect(a).toMatchObject({
      Temperature: 1,
      EnableUploadImage: true,
      RemoveChatLogOnBrowserClose: false,
      TalkToHumanResponseMessage: 'A human will be with you shortly.',
      SystemMessage: 'You are a helpful "real estate" assistant.',
    });
    expect(String(a.ChatBubbleColor)).toMatch(/^rgb\(37, ?99, ?235\)$/);
    // stored under the documented key, as a plain object
    expect(await env.ctx.store.get(appliedSettingsKey(env.ctx.config.chatbotId))).toMatchObject({ Temperature: 1 });
  });

  test('bad values name the field and the fix; nothing is applied', async () => {
    const before = await applied();
    const cases: Array<[string, RegExp]> = [
      ['set Temperature warm', /Temperature must be a whole number.*\/chatbot set Temperature 10/],
      ['set Temperature 1.5', /Temperature must be a whole number/],
      ['set EnableUploadImage maybe', /EnableUploadImage must be true or false.*yes or no/],
      ['set ChatBubbleColor blue', /ChatBubbleColor must look like rgb\(37,99,235\)/],
      ['set ChatBubbleColor rgb(300,0,0)', /ChatBubbleColor must look like rgb/],
      ['set MessageLimit -5', /MessageLimit must be a whole number, -1/],
      ['set TalkToHumanEmail nobody', /TalkToHumanEmail must be an e-mail address/],
      ['set Colour red', /"Colour" is not a chatbot setting\. Settings are: Name, Model, SystemMessage/],
      ['set Temperature', /Give a value for Temperature/],
      ['set', /Say which setting/],
    ];
    for (const [args, re] of cases) {
      const inv = await env.run(chatbotCommand, env.admin, args);
      expect(inv.replies[0]?.ephemeral).toBe(true);
      expect(inv.last().text).toMatch(re);
    }
    expect(await applied()).toEqual(before);
  });

  test('Model by name or key; an unknown model lists the models', async () => {
    const models = await env.ctx.client.listModels();
    const m = models.filter((x) => x.enabled).pop();
    if (!m) throw new Error('the local service lists no enabled model');
    const byName = await env.run(chatbotCommand, env.admin, `set Model ${m.name.toUpperCase()}`);
    expect(byName.last().text).toBe(`Set Model to ${m.name} (${m.key}).`);
    expect((await applied()).Model).toBe(m.key);
    const byKey = await env.run(chatbotCommand, env.admin, `set Model ${m.key}`);
    expect(byKey.last().text).toBe(`Set Model to ${m.name} (${m.key}).`);
    const unknown = await env.run(chatbotCommand, env.admin, 'set Model gpt-99');
    expect(unknown.last().text).toMatch(/Model: "gpt-99" is not a known model/);
    expect(unknown.last().text).toContain(`${m.name} (${m.key})`);
    const off = models.find((x) => !x.enabled);
    if (off) {
      const disabled = await env.run(chatbotCommand, env.admin, `set Model ${off.name}`);
      expect(disabled.last().text).toMatch(
        new RegExp(`Model: ${off.name.replace(/[.]/g, '\\.')} \\(${off.key}\\) is disabled`),
      );
      expect((await applied()).Model).toBe(m.key);
    }
  });
});

test("show is a readable card: the chatbot's name, settings grouped in words, no timestamps or wire keys", async () => {
  await env.run(chatbotCommand, env.admin, 'set WelcomeMessage Hello!');
  const inv = await env.run(chatbotCommand, env.admin, 'show');
  const msg = inv.last();
  const card = msg.cards?.[0];
  expect(msg.text).toBe('Chatbot: Skyline Realty Assistant');
  expect(card?.title).toBe('Skyline Realty Assistant');
  expect(card?.badge).toBe('Active');
  const field = (label: string) => card?.fields.find((f) => f.label === label)?.value ?? '';
  expect(field('Model and prompt')).toMatch(/Welcome message: Hello!/);
  expect(field('Model and prompt')).toMatch(/Temperature: 1/);
  await env.run(chatbotCommand, env.admin, 'set AIResponseLanguage Spanish');
  const again = (await env.run(chatbotCommand, env.admin, 'show')).last().cards?.[0];
  expect(JSON.stringify(again)).toContain('Answer language: Spanish');
  expect(JSON.stringify(again)).not.toMatch(/AIResponse|Airesponse/);
  expect(JSON.stringify(card)).toMatch(/Enable upload image: yes/);
  const all = JSON.stringify(msg);
  expect(all).not.toMatch(/\d{4}-\d{2}-\d{2}T|max_tokens=|has not applied any setting|no way to read them back/);
});

test('models lists "name (key)"', async () => {
  const models = await env.ctx.client.listModels();
  const inv = await env.run(chatbotCommand, env.admin, 'models');
  for (const m of models) expect(inv.last().text).toContain(`${m.name} (${m.key})`);
});

describe('edit form', () => {
  test('opens every setting, grouped, prefilled from what was applied', async () => {
    const inv = await env.run(chatbotCommand, env.admin, 'edit');
    const form = inv.forms[0];
    expect(form?.id).toBe(CHATBOT_EDIT_FORM);
    const fields = form?.fields ?? [];
    expect(fields.map((f) => f.name)).toEqual(SETTING_FIELDS.map((f) => f.name));
    const groups = new Map<string, number>();
    for (const f of fields) groups.set(f.group, (groups.get(f.group) ?? 0) + 1);
    for (const n of groups.values()) expect(n).toBeLessThanOrEqual(5);
    for (const g of ['model and prompt', 'appearance', 'contact and handoff', 'limits', 'privacy'])
      expect(groups.has(g)).toBe(true);
    const byName = (n: string) => fields.find((f) => f.name === n);
    expect(byName('Temperature')).toMatchObject({ kind: 'number', initial: '1' });
    expect(byName('EnableUploadImage')).toMatchObject({ kind: 'boolean', initial: 'yes' });
    expect(byName('Model')?.kind).toBe('select');
    expect(byName('SystemMessage')?.kind).toBe('textarea');
    expect(byName('MessageLimit')?.initial).toBeUndefined();
    // Labels in words, as the card shows them: never a camel-cased wire name.
    expect(byName('AIResponseLanguage')?.label).toBe('Answer language');
    expect(byName('SocialPageUrl')?.label).toBe('Social page URL');
    for (const f of fields) expect(f.label).toMatch(/^[A-Z][a-z-]*( [a-zA-Z-]+)*$/);
  });

  test('invalid values come back as field errors; valid ones are applied', async () => {
    const bad = await env.submit(
      chatbotCommand,
      CHATBOT_EDIT_FORM,
      env.ctx.config.chatbotId,
      { Temperature: 'hot', ChatBubbleColor: 'blue', Name: 'Fine' },
      env.admin,
    );
    expect(bad.result.ok).toBe(false);
    const errors = bad.result.ok ? {} : bad.result.errors;
    expect(Object.keys(errors).sort()).toEqual(['ChatBubbleColor', 'Temperature']);
    expect(errors.Temperature).toMatch(/Temperature must be a whole number/);
    expect((await applied()).Name).toBeUndefined();

    const ok = await env.submit(
      chatbotCommand,
      CHATBOT_EDIT_FORM,
      env.ctx.config.chatbotId,
      { Temperature: '1', Name: 'Realty Bot', RateLimitCount: '20', VerifyDomain: 'no', WelcomeMessage: '' },
      env.admin,
    );
    expect(ok.result).toEqual({ ok: true });
    expect(ok.inv.last().text).toMatch(/Updated 4 settings: Name, WelcomeMessage, RateLimitCount, VerifyDomain\./);
    expect(await applied()).toMatchObject({
      Name: 'Realty Bot',
      RateLimitCount: 20,
      VerifyDomain: false,
      WelcomeMessage: '',
      Temperature: 1,
    });
  });
});

describe('/v1 chatbots', () => {
  test('create shows id and status publicly, and the API key only to the admin', async () => {
    const inv = await env.run(chatbotCommand, env.admin, 'create "Lake House Bot"');
    const pub = inv.replies.filter((r) => !r.ephemeral);
    const priv = inv.replies.filter((r) => r.ephemeral);
    expect(pub).toHaveLength(1);
    expect(pub[0]?.msg.text).toMatch(/^Created chatbot Lake House Bot: id \S+, status draft\.$/);
    expect(priv).toHaveLength(1);
    expect(priv[0]?.msg.text).toMatch(/API key of Lake House Bot: \S+\nStore it now/);
    const key = /API key of Lake House Bot: (\S+)/.exec(priv[0]?.msg.text ?? '')?.[1] ?? '';
    expect(key.length).toBeGreaterThan(8);
    for (const m of env.surface.messages.values()) expect(m.current.text).not.toContain(key);

    const list = await env.run(chatbotCommand, env.admin, 'list');
    expect(list.last().text).toMatch(/• Lake House Bot — id \S+ — draft/);
    expect(list.last().text).not.toContain(key);
  });

  test('create without a name answers the usage', async () => {
    const inv = await env.run(chatbotCommand, env.admin, 'create');
    expect(inv.last().text).toMatch(/Give the new chatbot a name/);
  });
});
