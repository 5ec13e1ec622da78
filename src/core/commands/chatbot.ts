/**
 * `/chatbot show|set|edit|models|list|create|connect|disconnect|hours` (admins): the chatbot's settings
 * through Edit, the model list, the chatbots of the second family, the tenant's own chatbot and its
 * office hours.
 */
import { SETTING_GROUPS, SETTING_FIELDS } from '../../service/schemas/settings';
import type { TenantScope } from '../context';
import { applySettings, readAppliedSettings } from '../settings/applied';
import { settingsChangeFromForm, settingsFormFields } from '../settings/form';
import {
  checkSetting,
  describeApplied,
  displaySetting,
  fetchModels,
  resolveSettingName,
  type ModelChoice,
} from '../settings/parse';
import type { Card, FormResult, Invocation } from '../surface';
import { UsageError, restValue, splitHead } from './grammar';
import { usageOf } from './catalogue';
import { describeError, guarded, guardedCommand, requireAdmin } from './respond';
import { writableChatbot } from '../tenants/scope';
import { userMessage } from '../user-messages';
import { settingLabel } from '../settings/labels';
import { CONNECT_FORM, disconnect, openConnect, submitConnect } from './connect';
import { officeHoursCommand } from './office-hours';
import { maskSecret } from '../tenants/mask';

const USAGE = usageOf('chatbot');
/** The settings that are e-mail addresses (hidden from a guest of the shared chatbot). */
const EMAIL_FIELDS = SETTING_FIELDS.filter((f) => f.kind === 'email').map((f) => f.name);
const HIDDEN = "the deployment's (not shown)";
export const CHATBOT_EDIT_FORM = 'chatbot.edit';

/** Models for display and Model resolution; a failing ModelList leaves keys as typed. */
async function modelsOrUndefined(ctx: TenantScope): Promise<ModelChoice[] | undefined> {
  try {
    return await fetchModels(ctx);
  } catch (err) {
    ctx.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'model list unavailable');
    return undefined;
  }
}

/** Setting names, groups and states in words ("WelcomeMessage" -> "Welcome message"). */
const words = settingLabel;

/** "23 Nov 2026": a date people read, not an ISO timestamp. */
function day(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toUTCString().slice(5, 16);
}

/** The service's own model settings in words (max_tokens=1024 -> "Longest answer: 1,024 tokens"). */
function modelSettingLine(key: string, value: unknown): string {
  if (key === 'max_tokens' && typeof value === 'number')
    return `Longest answer: ${value.toLocaleString('en-US')} tokens`;
  if (key === 'temperature' && typeof value === 'number') return `Creativity (temperature): ${value}`;
  return `${words(key)}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`;
}

/** Whose chatbot this is: the workspace's own (its keys masked) or the deployment's. */
async function connectionField(ctx: TenantScope): Promise<Card['fields'][number]> {
  const c = await ctx.chatbots?.current();
  if (!c)
    return {
      label: 'Connection',
      value: "The deployment's chatbot (connect this workspace's own with /chatbot connect).",
    };
  const api = c.apiKey ? `, API key ${maskSecret(c.apiKey)}` : '';
  return {
    label: 'Connection',
    value: `This workspace's own: secret key ${maskSecret(c.secretKey)}, session key ${maskSecret(c.sessionKey)}${api}`,
  };
}

/** A readable card: the chatbot's name and status, its settings grouped, in words. */
async function show(ctx: TenantScope, inv: Invocation): Promise<void> {
  const applied = await readAppliedSettings(ctx);
  const models = applied.Model !== undefined ? await modelsOrUndefined(ctx) : undefined;
  const fields: Card['fields'] = [];
  if (ctx.config.embeddedService) {
    fields.push({
      label: 'Service',
      value:
        'The embedded demo chatbot service (CHATBOT_API_URL=embedded): answers come from its demo data, not your chatbot service.',
    });
  }
  // A guest of the shared chatbot sees its settings, never the operator's e-mail addresses.
  const guest = ctx.chatbot.kind === 'shared';
  const appliedLines = describeApplied(applied, models).map((l) =>
    guest && EMAIL_FIELDS.some((name) => l.startsWith(`${name}:`)) ? `${l.slice(0, l.indexOf(':'))}: ${HIDDEN}` : l,
  );
  for (const group of SETTING_GROUPS) {
    const inGroup = appliedLines.filter((l) => SETTING_FIELDS.find((f) => l.startsWith(`${f.name}:`))?.group === group);
    if (inGroup.length > 0) {
      fields.push({
        label: words(group),
        value: inGroup.map((l) => l.replace(/^(\w+):/, (_m, n: string) => `${words(n)}:`)).join('\n'),
      });
    }
  }
  if (appliedLines.length === 0)
    fields.push({
      label: 'Settings',
      value:
        "The chatbot's defaults: nothing was changed from here yet. Change them with /chatbot set or /chatbot edit.",
    });
  let title = ctx.chatbot.chatbotId;
  let badge: string | undefined;
  const footer: string[] = [];
  try {
    const record = (await ctx.chatbot.client.v1.listChatbots({ limit: 100 })).items.find(
      (c) => c.id === ctx.chatbot.chatbotId,
    );
    if (record) {
      title = record.name || title;
      badge = words(record.status);
      const s = record.settings;
      if (s && Object.keys(s).length > 0)
        fields.push({
          label: 'Answering',
          value: Object.entries(s)
            .map(([k, v]) => modelSettingLine(k, v))
            .join('\n'),
        });
      if (record.updatedAt) footer.push(`Last changed ${day(record.updatedAt)}`);
    }
  } catch (err) {
    footer.push(`Status unavailable: ${userMessage(ctx.log, err, { command: 'chatbot' })}`);
  }
  footer.push(`id ${ctx.chatbot.chatbotId}`);
  fields.push(await connectionField(ctx));
  const card: Card = { title, fields, footer: footer.join(' · ') };
  if (badge) card.badge = badge;
  const embedded = ctx.config.embeddedService ? ' (embedded demo service, CHATBOT_API_URL=embedded)' : '';
  await inv.reply({ text: `Chatbot: ${title}${embedded}`, cards: [card] }, { ephemeral: true });
}

async function set(ctx: TenantScope, inv: Invocation, rest: string): Promise<void> {
  const { head: field, rest: valueText } = splitHead(rest);
  if (!field) throw new UsageError('Say which setting to change: /chatbot set <Field> <value>.', USAGE);
  const name = resolveSettingName(field);
  if (!name.ok) throw new UsageError(name.error, USAGE);
  if (valueText === '')
    throw new UsageError(`Give a value for ${name.value}: /chatbot set ${name.value} <value>.`, USAGE);
  const models = name.value === 'Model' ? await fetchModels(ctx) : undefined;
  const checked = checkSetting(name.value, restValue(valueText), models);
  if (!checked.ok) throw new UsageError(checked.error, USAGE);
  await applySettings(ctx, writableChatbot(ctx), { [name.value]: checked.value });
  await inv.reply({ text: `Set ${name.value} to ${displaySetting(name.value, checked.value, models)}.` });
}

async function edit(ctx: TenantScope, inv: Invocation): Promise<void> {
  if (!inv.openForm) throw new UsageError('Forms cannot be opened here: use /chatbot set <Field> <value>.', USAGE);
  const [applied, models] = await Promise.all([readAppliedSettings(ctx), modelsOrUndefined(ctx)]);
  await inv.openForm({
    id: CHATBOT_EDIT_FORM,
    title: 'Chatbot settings',
    state: ctx.chatbot.chatbotId,
    fields: settingsFormFields(applied, models),
    submitLabel: 'Save',
  });
}

async function submitEdit(
  ctx: TenantScope,
  inv: Invocation,
  _state: string,
  values: Record<string, string>,
): Promise<FormResult> {
  const first = SETTING_FIELDS[0]?.name ?? 'Name';
  if (!inv.actor.isAdmin) return { ok: false, errors: { [first]: 'Only admins may change the chatbot settings.' } };
  const applied = await readAppliedSettings(ctx);
  const needsModels = values.Model !== undefined && values.Model.trim() !== '';
  const models = needsModels ? await modelsOrUndefined(ctx) : undefined;
  const { change, errors } = settingsChangeFromForm(applied, values, models);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const names = Object.keys(change);
  if (names.length === 0) {
    await inv.reply({ text: 'No setting changed.' }, { ephemeral: true });
    return { ok: true };
  }
  try {
    await applySettings(ctx, writableChatbot(ctx), change);
  } catch (err) {
    return { ok: false, errors: { [names[0] ?? first]: describeError(ctx, err, 'chatbot') } };
  }
  await inv.reply({ text: `Updated ${names.length} setting${names.length === 1 ? '' : 's'}: ${names.join(', ')}.` });
  return { ok: true };
}

async function models(ctx: TenantScope, inv: Invocation): Promise<void> {
  const list = await fetchModels(ctx);
  if (list.length === 0) {
    await inv.reply({ text: 'The service lists no models.' }, { ephemeral: true });
    return;
  }
  const lines = list.map((m) => `• ${m.name} (${m.key})${m.enabled ? '' : ' — disabled'}`);
  await inv.reply(
    { text: `Models (set one with /chatbot set Model <name or key>):\n${lines.join('\n')}` },
    { ephemeral: true },
  );
}

async function list(ctx: TenantScope, inv: Invocation): Promise<void> {
  // The /v1 account's chatbots are its owner's: never listed to a guest of the shared chatbot.
  const res = await writableChatbot(ctx).client.v1.listChatbots({ limit: 100 });
  if (res.items.length === 0) {
    await inv.reply({ text: 'No chatbots yet. Create one with /chatbot create <name>.' }, { ephemeral: true });
    return;
  }
  const lines = res.items.map((c) => `• ${c.name} — id ${c.id} — ${c.status}`);
  const more = res.meta.total > res.items.length ? `\n(${res.items.length} of ${res.meta.total} shown)` : '';
  await inv.reply({ text: `Chatbots:\n${lines.join('\n')}${more}` }, { ephemeral: true });
}

async function create(ctx: TenantScope, inv: Invocation, rest: string): Promise<void> {
  const name = restValue(rest);
  if (name === '') throw new UsageError('Give the new chatbot a name: /chatbot create <name>.', USAGE);
  if (name.length > 100) throw new UsageError('name: at most 100 characters.', USAGE);
  const bot = await writableChatbot(ctx).client.v1.createChatbot({ name });
  await inv.reply({ text: `Created chatbot ${bot.name}: id ${bot.id}, status ${bot.status}.` });
  // The key is shown once: only to the admin who asked, never in the channel.
  if (bot.apiKey) {
    await inv.reply(
      {
        text: `API key of ${bot.name}: ${bot.apiKey}\nStore it now in your secrets manager: it is not shown again. Don't paste it in a channel.`,
      },
      { ephemeral: true },
    );
  }
}

async function run(ctx: TenantScope, inv: Invocation, args: string): Promise<void> {
  requireAdmin(inv, 'manage the chatbot');
  const { head, rest } = splitHead(args);
  switch (head.toLowerCase()) {
    case 'show':
      return show(ctx, inv);
    case 'set':
      return set(ctx, inv, rest);
    case 'edit':
      return edit(ctx, inv);
    case 'models':
      return models(ctx, inv);
    case 'list':
      return list(ctx, inv);
    case 'create':
      return create(ctx, inv, rest);
    case 'connect':
      return openConnect(ctx, inv);
    case 'disconnect':
      return disconnect(ctx, inv);
    case 'hours':
      return officeHoursCommand(ctx, inv, rest);
    default:
      throw new UsageError(
        `Unknown subcommand "${head}": use show, set, edit, models, list, create, connect, disconnect or hours.`,
        USAGE,
      );
  }
}

export const chatbotCommand = guardedCommand('chatbot', {
  body: run,
  helpWhenEmpty: true,
  forms: { [CHATBOT_EDIT_FORM]: submitEdit, [CONNECT_FORM]: submitConnect },
  // The settings and the /v1 account are the chatbot's owner's: a guest of the shared chatbot may
  // show it (without the operator's addresses), list its models, set its own hours and connect its own.
  operatorOnly: { subcommands: ['set', 'edit', 'list', 'create'], forms: [CHATBOT_EDIT_FORM] },
  // A tenant without a chatbot may still connect one (or disconnect, which says there is none).
  unconnected: {
    subcommands: ['connect', 'disconnect'],
    run: (ctx, inv, args) =>
      guarded(ctx, inv, 'chatbot', async () => {
        requireAdmin(inv, 'manage the chatbot');
        await (splitHead(args).head.toLowerCase() === 'connect' ? openConnect(ctx, inv) : disconnect(ctx, inv));
      }),
    forms: { [CONNECT_FORM]: submitConnect },
  },
});
