/**
 * Bolt listeners: Slack's commands, events, button clicks and modal submits as core calls. Each one
 * acknowledges first (Slack wants an answer within 3 s), reads the body Bolt types for it, and never
 * lets an error escape to Bolt (which would answer 500 or log noise). The commands are the grammar's
 * catalogue. Redelivered events are not deduplicated here: core answers a message id once.
 *
 * Each kind of listener has its own `register*` function, so other modules' listeners (the assistant,
 * the App Home) are registered beside these in index.ts.
 */
import { byReference } from '../../core/user-messages';
import { requestTenant } from '../../core/tenants/tenant';
import type { App, BlockAction, ButtonAction, RespondFn, ViewSubmitAction } from '@slack/bolt';
import type { Logger } from 'pino';
import { COMMAND_SPECS } from '../../core/commands/catalogue';
import type {
  Actor,
  Attachment,
  BridgeCore,
  BridgeRequest,
  FormSpec,
  IncomingMessage,
  Invocation,
  MessageRef,
  Place,
} from '../../core/surface';
import {
  ACTION_PREFIX,
  VIEW_PREFIX,
  buttonValueFromAction,
  ephemeralResponse,
  formValues,
  renderForm,
  renderMessage,
  SLACK_LIMITS,
} from './blocks';
import { unescapeSlack } from './safe-text';
import { formMetadataSchema, messageEventSchema, type MessageEvent, type SlackFile } from './payloads';
import type { AssistantHooks } from './assistant';
import type { SlackPort } from './port';
import { authorizedTeam } from './request-team';
import type { UserNames } from './users';
import { untrusted, type UntrustedText } from '../../core/text/untrusted';

/** Every slash command the app registers, with the slash: the grammar's catalogue (manifest.yml is checked against it). */
export const SLACK_COMMANDS: readonly string[] = COMMAND_SPECS.map((s) => `/${s.name}`);

/** Slack closes a modal submit after 3 s; answer before then even if core is still busy. */
const VIEW_ACK_DEADLINE_MS = 2_500;

export interface ListenerDeps {
  app: App;
  port: SlackPort;
  users: UserNames;
  log: Logger;
  adminUsers: readonly string[];
  core: () => BridgeCore | undefined;
  /** The token's own team (one-token mode; '' in OAuth mode): for a request whose body and context name none. */
  team: () => string;
  /** The token's own bot user (one-token mode): for a request whose context names none. */
  botUserId: () => string | undefined;
  /** The assistant pane's hooks (assistant.ts). */
  assistant?: AssistantHooks;
}

/** Registers every listener of this module (commands, buttons, modal submits, message events). */
export function registerListeners(d: ListenerDeps): void {
  const h = helpers(d);
  registerCommands(d, h);
  registerButtons(d, h);
  registerFormSubmits(d, h);
  registerMessageEvents(d, h);
}

type Helpers = ReturnType<typeof helpers>;

/** What the listeners share: the actor, the Invocation they hand core, and failure reporting. */
function helpers(d: ListenerDeps) {
  // Admins: SLACK_ADMIN_USERS, and the workspace's own admins and owners (users.info, cached with the name).
  // Looked up in the request's own workspace (the place's).
  // An org admin or owner (Grid) is an admin of every workspace of the org; only they change an
  // org-wide install's shared connection.
  const actor = (place: Place, id: string, fallbackName?: string): Promise<Actor> =>
    d.users.actor(place.workspace, id, d.adminUsers, fallbackName);

  const invocation = (
    place: Place,
    who: Actor,
    extra: { triggerId?: string; respond?: RespondFn; source?: MessageRef },
  ): Invocation => {
    const inv: Invocation = {
      ...requestOf(d, place, who),
      reply: async (msg, opts) => {
        if (opts?.ephemeral) {
          await d.port.ephemeral(place, who.id, msg, extra.respond);
          return undefined;
        }
        return d.port.post(place, msg);
      },
    };
    if (extra.triggerId) {
      const triggerId = extra.triggerId;
      inv.openForm = async (form: FormSpec) => {
        const view = renderForm(form, {
          formId: form.id,
          state: form.state,
          channel: place.channel,
          ...(place.thread ? { thread: place.thread } : {}),
          team: place.workspace,
        });
        await d.port.openView(place, triggerId, view);
      };
    }
    if (extra.source) {
      const source = extra.source;
      inv.source = source;
      inv.update = (msg) => d.port.update(source, msg);
    }
    return inv;
  };

  /** Tell the invoker a failure, without letting a second failure escape. */
  const reportFailure = async (inv: Invocation, err: unknown, what: string): Promise<void> => {
    // Nothing internal reaches the person: the ref, and the detail logged beside it.
    const text = byReference(d.log, err, { what }, 'slack: handling failed');
    try {
      await inv.reply({ text }, { ephemeral: true });
    } catch (e) {
      d.log.warn({ err: e }, 'slack: could not report a failure to the user');
    }
  };

  const notReady = async (inv: Invocation): Promise<void> => {
    await inv
      .reply({ text: 'The bridge is starting up: please try again in a few seconds.' }, { ephemeral: true })
      .catch(() => undefined);
  };

  return { actor, invocation, reportFailure, notReady };
}

/** The grammar's commands, one listener each. */
function registerCommands(d: ListenerDeps, h: Helpers): void {
  for (const spec of COMMAND_SPECS) {
    d.app.command(`/${spec.name}`, async ({ ack, command: c, respond, context }) => {
      await ack();
      const workspace = authorizedTeam(d, context, c.team_id);
      const place: Place = { surface: 'slack', workspace, channel: c.channel_id };
      const inv = h.invocation(place, await h.actor(place, c.user_id, c.user_name), {
        ...(c.trigger_id ? { triggerId: c.trigger_id } : {}),
        ...(c.response_url ? { respond } : {}),
      });
      const core = d.core();
      if (!core) return h.notReady(inv);
      try {
        // Slack escapes what people type (`&lt;` for `<`): core gets the characters they typed.
        await core.command(inv, spec.name, incoming(c.text ?? ''));
      } catch (err) {
        await h.reportFailure(inv, err, c.command);
      }
    });
  }
}

/** The bridge's buttons (action_id prefixed ACTION_PREFIX). */
function registerButtons(d: ListenerDeps, h: Helpers): void {
  const buttons = { type: 'block_actions', action_id: new RegExp(`^${ACTION_PREFIX}`) } as const;
  d.app.action<BlockAction<ButtonAction>>(buttons, async ({ ack, action, body: b, respond, context }) => {
    await ack();
    const routed = buttonValueFromAction(action.action_id, action.value);
    const container = b.container as
      | { type?: string; channel_id?: string; message_ts?: string; thread_ts?: string }
      | undefined;
    // A Work Object's action pressed in its flexpane may come from no conversation at all: what it
    // starts is the presser's own, in their DM with the app (a user's id as channel: Slack's app DM).
    // A message's or a view's (App Home, a modal) button names its own place or none.
    const own = container?.type === undefined || container.type === 'message';
    const entity = !own && container?.type !== 'view';
    const channel = b.channel?.id ?? container?.channel_id ?? (entity ? b.user.id : undefined);
    if (!routed || !channel) return;
    // Only the bridge's own message is a source to edit (an unfurl's or flexpane's press names the user's).
    const messageTs = own ? (b.message?.ts ?? container?.message_ts) : undefined;
    const thread = (b.message?.thread_ts as string | undefined) ?? container?.thread_ts;
    const place: Place = {
      surface: 'slack',
      workspace: authorizedTeam(d, context, b.team?.id, b.user.team_id),
      channel,
      ...(thread ? { thread } : {}),
    };
    const inv = h.invocation(place, await h.actor(place, b.user.id, b.user.name ?? b.user.username), {
      ...(b.trigger_id ? { triggerId: b.trigger_id } : {}),
      ...(b.response_url ? { respond } : {}),
      ...(messageTs ? { source: { place, id: messageTs } } : {}),
    });
    if ((b.container as { is_ephemeral?: boolean } | undefined)?.is_ephemeral === true && b.response_url) {
      // chat.update cannot edit an ephemeral message: its response_url replaces it (buttons and all).
      inv.update = async (msg) => {
        await respond(ephemeralResponse(renderMessage(msg), true));
      };
    }
    const core = d.core();
    if (!core) return h.notReady(inv);
    try {
      await core.action(inv, routed.a, routed.v);
    } catch (err) {
      await h.reportFailure(inv, err, routed.a);
    }
  });
}

/** Submits of the bridge's modals (callback_id prefixed VIEW_PREFIX). */
function registerFormSubmits(d: ListenerDeps, h: Helpers): void {
  const forms = { type: 'view_submission', callback_id: new RegExp(`^${VIEW_PREFIX}`) } as const;
  d.app.view<ViewSubmitAction>(forms, async ({ ack, body: v, context }) => {
    // Slack echoes the modal's private_metadata (ours, so parsed): should it ever come back empty,
    // the form is still known from the callback_id (without a channel to answer in, errors show inline).
    const metaJson = safeJson(v.view.private_metadata) ?? {
      formId: v.view.callback_id.slice(VIEW_PREFIX.length),
      state: '',
    };
    const meta = formMetadataSchema.safeParse(metaJson);
    const core = d.core();
    if (!meta.success || !core) {
      await ack();
      return;
    }
    const place: Place = {
      surface: 'slack',
      workspace: authorizedTeam(d, context, meta.data.team, v.team?.id, v.user.team_id),
      channel: meta.data.channel ?? '',
      ...(meta.data.thread ? { thread: meta.data.thread } : {}),
    };
    const inv = h.invocation(place, await h.actor(place, v.user.id, v.user.name), {
      ...(v.trigger_id ? { triggerId: v.trigger_id } : {}),
    });
    const work = core.submitForm(inv, meta.data.formId, meta.data.state, formValues(v.view));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), VIEW_ACK_DEADLINE_MS);
    });
    let acked = false;
    try {
      const first = await Promise.race([work, late]);
      clearTimeout(timer);
      if (first !== 'late' && !first.ok) {
        await ack({ response_action: 'errors', errors: first.errors });
        return;
      }
      await ack();
      acked = true;
      const result = first === 'late' ? await work : first;
      if (!result.ok) {
        // Too late for inline errors: the modal has closed, so say it in a message.
        const lines = Object.entries(result.errors).map(([field, why]) => `• ${field}: ${why}`);
        await inv.reply({ text: `Not saved:\n${lines.join('\n')}` }, { ephemeral: true });
      } else if (result.message && place.channel) {
        await inv.reply(result.message, { ephemeral: true });
      }
    } catch (err) {
      clearTimeout(timer);
      if (!acked) await ack().catch(() => undefined);
      if (place.channel) await h.reportFailure(inv, err, meta.data.formId);
      else d.log.error({ err, form: meta.data.formId }, 'slack: form submit failed');
    }
  });
}

/**
 * Mentions, DMs and thread replies. Bolt's ignoreSelf (on by default) drops the bot's own messages;
 * other bots' are dropped here. The event is one of a dozen message subtypes in Bolt's types, so it is
 * read through one schema (payloads.ts) into the one shape the bridge uses.
 */
function registerMessageEvents(d: ListenerDeps, h: Helpers): void {
  const handleMessage = async (team: string, bot: string | undefined, event: MessageEvent): Promise<void> => {
    const isMention = event.type === 'app_mention';
    if (event.bot_id || !event.user) return;
    if (event.subtype && event.subtype !== 'file_share' && event.subtype !== 'thread_broadcast') return;
    const isDm = event.channel_type === 'im' || (!isMention && event.channel.startsWith('D') && !event.channel_type);
    const mentionsBot = bot !== undefined && event.text.includes(`<@${bot}`);
    if (!isMention && !isDm) {
      // Channel chatter outside threads is not for the bridge; a mention arrives as app_mention too.
      if (!event.thread_ts || mentionsBot) return;
    }
    const workspace = team;
    const thread = isMention || isDm ? (event.thread_ts ?? event.ts) : event.thread_ts!;
    const place: Place = { surface: 'slack', workspace, channel: event.channel, thread };
    // Slack escapes what people type (`&lt;` for `<`): core gets the characters they typed.
    const text = incoming(mentionsBot ? stripMention(event.text, bot) : event.text);
    const msg: IncomingMessage = {
      ...requestOf(d, place, await h.actor(place, event.user)),
      text,
      id: event.ts,
      attachments: (event.files ?? []).map((f) => toAttachment(f, workspace)),
      startsConversation: isMention || isDm,
    };
    const core = d.core();
    if (!core) {
      d.log.warn('slack: message before the core was attached, dropped');
      return;
    }
    // A DM thread is an assistant thread (the pane's, or the agent experience's thread on the user's
    // first message): its first question becomes its title (alongside the answer).
    const titled = isDm && d.assistant ? d.assistant.onThreadMessage(place, text) : undefined;
    try {
      await core.message(msg, d.port);
      await titled;
    } catch (err) {
      const text = byReference(d.log, err, {}, 'slack: message handling failed');
      await d.port.notify(place, msg.actor, { text }).catch(() => undefined);
    }
  };

  for (const type of ['app_mention', 'message'] as const) {
    d.app.event(type, async ({ body, event, context }) => {
      try {
        const parsed = messageEventSchema.safeParse(event);
        if (!parsed.success) return;
        const team = authorizedTeam(d, context, body.team_id, parsed.data.team);
        await handleMessage(team, context.botUserId ?? d.botUserId(), parsed.data);
      } catch (err) {
        d.log.error({ err, type }, 'slack: event handling failed');
      }
    });
  }
}

/**
 * Who and where, once per Slack event: the team is the tenant; the answer is for the actor until
 * core finds the conversation's asker (a native stream in a thread is addressed to its asker).
 */
function requestOf(d: ListenerDeps, place: Place, actor: Actor): BridgeRequest {
  return { tenant: requestTenant(place), surface: d.port, place, actor, for: { id: actor.id, name: actor.name } };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** The bot's own mention is how the user addressed it, not part of the question. */
export function stripMention(text: string, botUserId: string): string {
  return (
    text
      // The label's length bounded: a text of `<@BOT|` repeated with no `>` stays linear.
      .replace(new RegExp(`<@${botUserId}(\\|[^>]{0,100})?>`, 'g'), '')
      .replace(/^[\s,:]+/, '')
      .trim()
  );
}

function toAttachment(f: SlackFile, workspace: string): Attachment {
  const att: Attachment = { id: f.id, name: f.name ?? f.title ?? f.id, workspace };
  if (f.mimetype) att.mime = f.mimetype;
  if (typeof f.size === 'number') att.size = f.size;
  const url = f.url_private_download ?? f.url_private;
  if (url) att.url = url;
  return att;
}

/**
 * What a person typed, as core gets it: Slack's escaping undone, cut at Slack's own maximum for a
 * message's text (40,000 characters), so nothing longer than Slack allows reaches a pattern.
 */
function incoming(text: string): UntrustedText {
  return untrusted(unescapeSlack(text), SLACK_LIMITS.text);
}
