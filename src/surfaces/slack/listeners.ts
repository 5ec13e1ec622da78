/**
 * Bolt listeners: Slack's commands, events, button clicks and modal submits as core calls. Each one
 * acknowledges first (Slack wants an answer within 3 s), re-parses the body with the zod schemas of
 * payloads.ts, and never lets an error escape to Bolt (which would answer 500 or log noise).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type {
  Actor,
  Attachment,
  BridgeCore,
  CommandName,
  FormSpec,
  IncomingMessage,
  Invocation,
  MessageRef,
  OutMessage,
  Place,
} from '../../core/surface';
import { PlatformRateLimitError } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { ACTION_PREFIX, VIEW_PREFIX, buttonValueFromAction, formValues, renderForm, renderMessage } from './blocks';
import { unescapeSlack } from './safe-text';
import {
  blockActionsSchema,
  eventEnvelopeSchema,
  formMetadataSchema,
  messageEventSchema,
  slashCommandSchema,
  viewSubmissionSchema,
  type MessageEvent,
  type SlackFile,
} from './payloads';
import type { SlackPort } from './port';
import type { UserNames } from './users';
import { call, slackErrorCode, type WebClient } from './web';

/** Every slash command the app registers (manifest.yml lists the same; a test checks). */
export const SLACK_COMMANDS = ['/ask', '/listings', '/listing', '/chatbot', '/handoff', '/analytics', '/history'] as const;

/** Slack redelivers an event for up to about an hour; remember ids a day. */
const EVENT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;
/** Slack closes a modal submit after 3 s; answer before then even if core is still busy. */
const VIEW_ACK_DEADLINE_MS = 2_500;

export interface ListenerDeps {
  app: App;
  port: SlackPort;
  client: WebClient;
  store: StateStore;
  users: UserNames;
  log: Logger;
  adminUsers: readonly string[];
  core: () => BridgeCore | undefined;
  team: () => string;
  botUserId: () => string | undefined;
}

type AckFn = (response?: Record<string, unknown> | string) => Promise<void>;
type RespondFn = (message: Record<string, unknown>) => Promise<unknown>;

const FAILED: OutMessage = { text: 'Sorry, something went wrong on our side. Please try again in a moment.' };

export function registerListeners(d: ListenerDeps): void {
  const actor = async (id: string, fallbackName?: string): Promise<Actor> => ({
    id,
    name: await d.users.name(id, fallbackName),
    isAdmin: d.adminUsers.includes(id),
  });

  const ephemeral = async (place: Place, user: string, msg: OutMessage, respond?: RespondFn): Promise<void> => {
    const { text, blocks } = renderMessage(msg);
    try {
      await call(() =>
        d.client.chat.postEphemeral({
          channel: place.channel,
          user,
          text,
          blocks: blocks as never,
          ...(place.thread ? { thread_ts: place.thread } : {}),
        }),
      );
    } catch (err) {
      if (err instanceof PlatformRateLimitError || !respond) throw err;
      // Not a member of the channel (a DM between people, a private channel): the response_url works.
      d.log.debug({ code: slackErrorCode(err) }, 'slack: postEphemeral failed, using response_url');
      await respond({ response_type: 'ephemeral', replace_original: false, text, blocks });
    }
  };

  const invocation = (
    place: Place,
    who: Actor,
    extra: { triggerId?: string; respond?: RespondFn; source?: MessageRef },
  ): Invocation => {
    const inv: Invocation = {
      surface: d.port,
      place,
      actor: who,
      reply: async (msg, opts) => {
        if (opts?.ephemeral) {
          await ephemeral(place, who.id, msg, extra.respond);
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
        await call(() => d.client.views.open({ trigger_id: triggerId, view: view as never }));
      };
    }
    if (extra.source) {
      const source = extra.source;
      inv.source = source;
      // Not the relay's edit: it spends the workspace's chat.update budget itself.
      inv.update = (msg) => d.port.update(source, msg);
    }
    return inv;
  };

  /** Tell the invoker a failure, without letting a second failure escape. */
  const reportFailure = async (inv: Invocation, err: unknown, what: string): Promise<void> => {
    d.log.error({ err, what }, 'slack: handling failed');
    try {
      await inv.reply(FAILED, { ephemeral: true });
    } catch (e) {
      d.log.warn({ err: e }, 'slack: could not report a failure to the user');
    }
  };

  const notReady = async (inv: Invocation): Promise<void> => {
    await inv.reply({ text: 'The bridge is starting up: please try again in a few seconds.' }, { ephemeral: true }).catch(() => undefined);
  };

  // ---- slash commands ------------------------------------------------------------------------------
  for (const command of SLACK_COMMANDS) {
    const name = command.slice(1) as CommandName;
    d.app.command(command, async ({ ack, body, respond }) => {
      await (ack as AckFn)();
      const parsed = slashCommandSchema.safeParse(body);
      if (!parsed.success) return;
      const c = parsed.data;
      const place: Place = { surface: 'slack', workspace: c.team_id ?? d.team(), channel: c.channel_id };
      await d.port.noteRecipient(place, c.user_id);
      const inv = invocation(place, await actor(c.user_id, c.user_name), {
        ...(c.trigger_id ? { triggerId: c.trigger_id } : {}),
        ...(c.response_url ? { respond: respond as RespondFn } : {}),
      });
      const core = d.core();
      if (!core) return notReady(inv);
      try {
        await core.command(inv, name, unescapeSlack(c.text));
      } catch (err) {
        await reportFailure(inv, err, command);
      }
    });
  }

  // ---- buttons -------------------------------------------------------------------------------------
  d.app.action(new RegExp(`^${ACTION_PREFIX}`), async ({ ack, body, respond }) => {
    await (ack as AckFn)();
    const parsed = blockActionsSchema.safeParse(body);
    if (!parsed.success) return;
    const b = parsed.data;
    const clicked = b.actions.find((a) => a.action_id.startsWith(ACTION_PREFIX));
    const routed = clicked && buttonValueFromAction(clicked.action_id, clicked.value);
    const channel = b.channel?.id ?? b.container?.channel_id;
    if (!routed || !channel) return;
    const messageTs = b.message?.ts ?? b.container?.message_ts;
    const thread = b.message?.thread_ts ?? b.container?.thread_ts;
    const place: Place = {
      surface: 'slack',
      workspace: b.team?.id ?? b.user.team_id ?? d.team(),
      channel,
      ...(thread ? { thread } : {}),
    };
    const inv = invocation(place, await actor(b.user.id, b.user.name ?? b.user.username), {
      ...(b.trigger_id ? { triggerId: b.trigger_id } : {}),
      ...(b.response_url ? { respond: respond as RespondFn } : {}),
      ...(messageTs ? { source: { place, id: messageTs } } : {}),
    });
    if (b.container?.is_ephemeral === true && b.response_url) {
      // chat.update cannot edit an ephemeral message: its response_url replaces it (buttons and all).
      inv.update = async (msg) => {
        const { text, blocks } = renderMessage(msg);
        await (respond as RespondFn)({ response_type: 'ephemeral', replace_original: true, text, blocks });
      };
    }
    const core = d.core();
    if (!core) return notReady(inv);
    try {
      await core.action(inv, routed.a, routed.v);
    } catch (err) {
      await reportFailure(inv, err, routed.a);
    }
  });

  // ---- modal submits -------------------------------------------------------------------------------
  d.app.view(new RegExp(`^${VIEW_PREFIX}`), async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    // Slack echoes the modal's private_metadata; should it ever come back empty, the form is still
    // known from the callback_id (without a channel to answer in, errors still show inline).
    const metaJson = parsed.success
      ? (safeJson(parsed.data.view.private_metadata) ?? { formId: parsed.data.view.callback_id.slice(VIEW_PREFIX.length), state: '' })
      : undefined;
    const meta = formMetadataSchema.safeParse(metaJson);
    const core = d.core();
    if (!parsed.success || !meta.success || !core) {
      await (ack as AckFn)();
      return;
    }
    const v = parsed.data;
    const place: Place = {
      surface: 'slack',
      workspace: meta.data.team ?? v.team?.id ?? v.user.team_id ?? d.team(),
      channel: meta.data.channel ?? '',
      ...(meta.data.thread ? { thread: meta.data.thread } : {}),
    };
    const inv = invocation(place, await actor(v.user.id, v.user.name ?? v.user.username), {
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
        await (ack as AckFn)({ response_action: 'errors', errors: first.errors });
        return;
      }
      await (ack as AckFn)();
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
      if (!acked) await (ack as AckFn)().catch(() => undefined);
      if (place.channel) await reportFailure(inv, err, meta.data.formId);
      else d.log.error({ err, form: meta.data.formId }, 'slack: form submit failed');
    }
  });

  // ---- events --------------------------------------------------------------------------------------
  /**
   * True the first time an event id is seen in a channel (Slack's retries and redeliveries carry the
   * same id). Called only for events the bridge acts on, so chatter leaves no key behind.
   */
  const firstTime = async (body: unknown, channel: string): Promise<boolean> => {
    const env = eventEnvelopeSchema.safeParse(body);
    if (!env.success) return false;
    return d.store.setIfAbsent(`slack:event:${env.data.team_id ?? ''}:${channel}:${env.data.event_id}`, Date.now(), EVENT_DEDUPE_TTL_MS);
  };

  const handleMessage = async (body: unknown, event: MessageEvent): Promise<void> => {
    const bot = d.botUserId();
    const isMention = event.type === 'app_mention';
    if (event.bot_id || !event.user || (bot && event.user === bot)) return;
    if (event.subtype && event.subtype !== 'file_share' && event.subtype !== 'thread_broadcast') return;
    const isDm = event.channel_type === 'im' || (!isMention && event.channel.startsWith('D') && !event.channel_type);
    const mentionsBot = bot !== undefined && event.text.includes(`<@${bot}`);
    if (!isMention && !isDm) {
      // Channel chatter outside threads is not for the bridge; a mention arrives as app_mention too.
      if (!event.thread_ts || mentionsBot) return;
    }
    if (!(await firstTime(body, event.channel))) return;
    const env = eventEnvelopeSchema.safeParse(body);
    const workspace = (env.success ? env.data.team_id : undefined) ?? event.team ?? d.team();
    const thread = isMention || isDm ? (event.thread_ts ?? event.ts) : event.thread_ts!;
    const place: Place = { surface: 'slack', workspace, channel: event.channel, thread };
    const user = event.user;
    const noteRecipient = (): Promise<void> =>
      d.port.noteRecipient(place, user).catch((err: unknown) => {
        // Only native streaming needs the recipient, and it falls back to chat.update without one.
        d.log.warn({ err }, 'slack: storing the thread recipient failed');
      });
    // A conversation's first message: noted before its answer starts. Any other thread message only
    // once core took it (a thread the bridge does not follow leaves no key behind).
    if (isMention || isDm) await noteRecipient();
    // Slack escapes what people type (`&lt;` for `<`): core gets the characters they typed.
    const text = unescapeSlack(mentionsBot ? stripMention(event.text, bot) : event.text);
    const msg: IncomingMessage = {
      place,
      actor: await actor(event.user),
      text,
      id: event.ts,
      attachments: (event.files ?? []).map(toAttachment),
      startsConversation: isMention || isDm,
    };
    const core = d.core();
    if (!core) {
      d.log.warn('slack: message before the core was attached, dropped');
      return;
    }
    try {
      const taken = await core.message(msg, d.port);
      if (taken && !(isMention || isDm)) await noteRecipient();
    } catch (err) {
      d.log.error({ err }, 'slack: message handling failed');
      await d.port.notify(place, msg.actor, FAILED).catch(() => undefined);
    }
  };

  for (const type of ['app_mention', 'message'] as const) {
    d.app.event(type, async ({ body, event }) => {
      try {
        const parsed = messageEventSchema.safeParse(event);
        if (!parsed.success) return;
        await handleMessage(body, parsed.data);
      } catch (err) {
        d.log.error({ err, type }, 'slack: event handling failed');
      }
    });
  }
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
  return text.replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '').replace(/^[\s,:]+/, '').trim();
}

function toAttachment(f: SlackFile): Attachment {
  const att: Attachment = { id: f.id, name: f.name ?? f.title ?? f.id };
  if (f.mimetype) att.mime = f.mimetype;
  if (typeof f.size === 'number') att.size = f.size;
  const url = f.url_private_download ?? f.url_private;
  if (url) att.url = url;
  return att;
}
