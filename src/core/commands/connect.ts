/**
 * `/chatbot connect` and `/chatbot disconnect` (the tenant's admins): the tenant's own chatbot and
 * handoff channel. Connect opens a private form for the chatbot id and keys, checks them live
 * (tenants/check.ts) and the channel (the bridge must be able to post there), saves them sealed
 * (tenants/connections.ts) and shows them back masked with the office settings that apply.
 * Disconnect deletes them: the tenant falls back to the deployment's chatbot, or to none.
 */
import { userMessage } from '../user-messages';
import type { UnconnectedScope } from '../context';
import type { Card, FormField, FormResult, Invocation } from '../surface';
import type { ChatbotCredentials, Connection } from '../tenants/connections';
import { NOT_CONNECTED } from '../tenants/directory';
import { maskSecret } from '../tenants/mask';
import { officeFields } from '../tenants/office-summary';
import type { Tenant } from '../tenants/tenant';
import { sameTenant } from '../../state/tenant-store';

export const CONNECT_FORM = 'chatbot.connect';

const NO_KEY =
  'Connecting a chatbot keeps its keys encrypted with STATE_ENCRYPTION_KEY, which is not set: set STATE_ENCRYPTION_KEY (32 bytes in base64, make one with `openssl rand -base64 32`) and restart the bridge.';

function connectFields(current: Connection | undefined): FormField[] {
  const field = (name: string, label: string, extra: Partial<FormField>): FormField => ({
    name,
    label,
    kind: 'text',
    required: true,
    group: 'Chatbot',
    ...extra,
  });
  const id = field('chatbotId', 'Chatbot id', { hint: "your chatbot's id (serialNumber)" });
  if (current) id.initial = current.chatbotId;
  const channel = field('handoffChannel', 'Handoff channel', {
    kind: 'channel',
    required: false,
    hint: 'where tickets for a human go (the bridge must be in it)',
  });
  if (current?.handoffChannel) channel.initial = current.handoffChannel;
  return [
    id,
    field('secretKey', 'Secret key', { secret: true }),
    field('sessionKey', 'Session key', { secret: true }),
    field('apiKey', 'API key (/v1, optional)', { secret: true, required: false }),
    channel,
  ];
}

export const ORG_ONLY =
  "This workspace is served by its org's org-wide install: only an admin or owner of the org may change the chatbot connection its workspaces share.";

/**
 * Why `inv`'s actor may not change the connection: a workspace of an org-wide install shares its
 * enterprise's, which only the org's admins and owners change (not one workspace's admin).
 */
async function orgRefusal(ctx: UnconnectedScope, inv: Invocation): Promise<string | undefined> {
  if (sameTenant(ctx.canonical, inv.tenant) || inv.actor.orgAdmin === true) return undefined;
  return ORG_ONLY;
}

/** `/chatbot connect`: the private form (its keys are never pre-filled). */
export async function openConnect(ctx: UnconnectedScope, inv: Invocation): Promise<void> {
  const org = await orgRefusal(ctx, inv);
  if (org) {
    await inv.reply({ text: org }, { ephemeral: true });
    return;
  }
  if (!ctx.chatbots?.canSave) {
    await inv.reply({ text: NO_KEY }, { ephemeral: true });
    return;
  }
  if (!inv.openForm) {
    await inv.reply({ text: '/chatbot connect opens a form: run it in Slack or Discord.' }, { ephemeral: true });
    return;
  }
  const current = await ctx.chatbots.current();
  await inv.openForm({
    id: CONNECT_FORM,
    title: 'Connect a chatbot',
    state: '',
    fields: connectFields(current),
    submitLabel: 'Connect',
  });
}

type Read = { ok: true; creds: ChatbotCredentials } | { ok: false; errors: Record<string, string> };

function credentialsOf(values: Record<string, string>): Read {
  const v = (name: string): string => (values[name] ?? '').trim();
  const errors: Record<string, string> = {};
  if (!v('chatbotId')) errors.chatbotId = "Give the chatbot's id (its serialNumber in the chatbot service).";
  if (!v('secretKey')) errors.secretKey = 'Give the secret key (it signs GetSession and questions).';
  if (!v('sessionKey')) errors.sessionKey = 'Give the session key (it reads listings).';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const creds: ChatbotCredentials = {
    chatbotId: v('chatbotId'),
    secretKey: v('secretKey'),
    sessionKey: v('sessionKey'),
  };
  if (v('apiKey')) creds.apiKey = v('apiKey');
  return { ok: true, creds };
}

/** A channel id as picked (Slack, Discord: a channel select) or typed (the shell: the id, or `<#id>` as pasted). */
function channelOf(value: string | undefined): string | undefined {
  const text = (value ?? '').trim().replace(/^<#(\w+)(\|[^>]*)?>$/, '$1');
  return text === '' ? undefined : text;
}

async function channelProblem(inv: Invocation, channel: string | undefined): Promise<string | undefined> {
  if (!channel) return undefined;
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(channel)) return 'Pick a channel (or give its id, like C0123ABCD or 1234567890).';
  const place = { surface: inv.place.surface, workspace: inv.place.workspace, channel };
  const why = await inv.surface.directory.cannotPostIn(place);
  return why ? `The bridge cannot post there: ${why}` : undefined;
}

async function connectedCard(ctx: UnconnectedScope, inv: Invocation, tenant: Tenant, c: Connection): Promise<Card> {
  const chatbot = { kind: ctx.chatbots?.connectedKind(c.chatbotId) ?? 'own', chatbotId: c.chatbotId } as const;
  const named = c.handoffChannel
    ? await inv.surface.directory.channelName({ ...inv.place, channel: c.handoffChannel }).catch(() => undefined)
    : undefined;
  const channel = c.handoffChannel ? `#${named ?? c.handoffChannel}` : "the deployment's handoff channel";
  return {
    title: `Chatbot ${c.chatbotId}`,
    fields: [
      { label: 'Secret key', value: maskSecret(c.secretKey) },
      { label: 'Session key', value: maskSecret(c.sessionKey) },
      {
        label: 'API key',
        value: c.apiKey ? maskSecret(c.apiKey) : 'not given (/chatbot show, /analytics and /history need it)',
      },
      { label: 'Handoff channel', value: channel },
      ...(await officeFields({ ...ctx, canonical: tenant, chatbot })),
    ],
    footer:
      'Change the office settings with /chatbot set, /chatbot edit or /chatbot hours; /chatbot disconnect removes these keys.',
  };
}

/** The form: checked live, then saved sealed; errors name the field and what failed. */
export async function submitConnect(
  ctx: UnconnectedScope,
  inv: Invocation,
  _state: string,
  values: Record<string, string>,
): Promise<FormResult> {
  const directory = ctx.chatbots;
  if (!inv.actor.isAdmin)
    return { ok: false, errors: { chatbotId: "Only this workspace's admins may connect a chatbot." } };
  if (!directory?.canSave) return { ok: false, errors: { chatbotId: NO_KEY } };
  const org = await orgRefusal(ctx, inv);
  if (org) return { ok: false, errors: { chatbotId: org } };
  const read = credentialsOf(values);
  if (!read.ok) return read;
  const { creds } = read;
  const handoffChannel = channelOf(values.handoffChannel);
  const channelError = await channelProblem(inv, handoffChannel);
  if (channelError) return { ok: false, errors: { handoffChannel: channelError } };
  const refused = await directory.check(creds, (err) =>
    userMessage(ctx.log, err, { command: 'chatbot connect', tenant: inv.place.workspace }),
  );
  if (Object.keys(refused).length > 0) return { ok: false, errors: refused as Record<string, string> };
  const tenant = ctx.canonical;
  const connection: Connection = { ...creds, connectedBy: inv.actor.id, connectedAt: ctx.now() };
  if (handoffChannel) connection.handoffChannel = handoffChannel;
  await directory.save(connection);
  ctx.log.info({ tenant, chatbotId: creds.chatbotId, by: inv.actor.id }, 'tenant connected its chatbot');
  const card = await connectedCard(ctx, inv, tenant, connection);
  return {
    ok: true,
    message: { text: `Connected: this workspace is answered by chatbot ${creds.chatbotId}.`, cards: [card] },
  };
}

/** `/chatbot disconnect`: the tenant's keys deleted. */
export async function disconnect(ctx: UnconnectedScope, inv: Invocation): Promise<void> {
  const org = await orgRefusal(ctx, inv);
  if (org) {
    await inv.reply({ text: org }, { ephemeral: true });
    return;
  }
  const tenant = ctx.canonical;
  const had = (await ctx.chatbots?.remove()) ?? false;
  if (!had) {
    await inv.reply(
      { text: 'This workspace has no chatbot of its own connected: nothing to disconnect.' },
      { ephemeral: true },
    );
    return;
  }
  ctx.log.info({ tenant, by: inv.actor.id }, 'tenant disconnected its chatbot');
  const after = ctx.chatbots?.hasDefault
    ? "From now on it is answered by this deployment's default chatbot."
    : NOT_CONNECTED;
  await inv.reply({ text: `Disconnected: this workspace's chatbot keys are deleted. ${after}` }, { ephemeral: true });
}
