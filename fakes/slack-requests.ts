/**
 * Drive the app the way Slack does: signed HTTP requests to POST /slack/events (v0 HMAC over
 * `v0:<timestamp>:<body>`), slash commands and interactivity form-encoded, events as JSON.
 * Also re-exports the bounded polling helper (tests wait for conditions, never for fixed times).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { parse, stringify } from 'node:querystring';
import { z } from 'zod';

export function sign(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/**
 * Slack's acknowledgement window: a slash command or interaction answered later shows the user an
 * error, and an event answered later is delivered again. The driver and the Socket Mode fake record
 * every later answer in `lateAcks`, as Slack would count it failed; tests assert there were none.
 */
export const ACK_WINDOW_MS = 3000;

export interface LateAck {
  /** What was acknowledged late: the command, the event type or the payload type. */
  what: string;
  afterMs: number;
}

export interface SlackResponse {
  status: number;
  text: string;
  json: unknown;
}

export interface SendOptions {
  /** Seconds since epoch used in the signature (default now). */
  timestamp?: number;
  /** Sign with this secret instead (forgeries). */
  secret?: string;
  signature?: string;
  retryNum?: number;
  headers?: Record<string, string>;
}

export class SlackDriver {
  private counter = 0;
  /** Requests the app answered after Slack's 3 s window (see ACK_WINDOW_MS). */
  readonly lateAcks: LateAck[] = [];

  /**
   * `enterprise`: the app is installed org-wide there (Enterprise Grid) and `team` is one of its
   * workspaces (or the enterprise itself, for events about the org's installation): requests carry
   * the enterprise and `is_enterprise_install` as Slack sends them to an org-wide app.
   */
  constructor(
    readonly eventsUrl: string,
    readonly signingSecret: string,
    readonly team = 'T0FAKE',
    readonly enterprise?: string,
  ) {}

  /** The same app's requests from another workspace of its enterprise (org-wide install). */
  inTeam(team: string): SlackDriver {
    return new SlackDriver(this.eventsUrl, this.signingSecret, team, this.enterprise);
  }

  async raw(body: string, contentType: string, opts: SendOptions = {}): Promise<SlackResponse> {
    const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': opts.signature ?? sign(opts.secret ?? this.signingSecret, ts, body),
      ...(opts.retryNum !== undefined
        ? { 'x-slack-retry-num': String(opts.retryNum), 'x-slack-retry-reason': 'http_timeout' }
        : {}),
      ...opts.headers,
    };
    const started = Date.now();
    const res = await fetch(this.eventsUrl, { method: 'POST', headers, body, signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    const ms = Date.now() - started;
    if (ms > ACK_WINDOW_MS) this.lateAcks.push({ what: describeRequest(body, contentType), afterMs: ms });
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  }

  form(fields: Record<string, string>, opts?: SendOptions): Promise<SlackResponse> {
    return this.raw(stringify(fields), 'application/x-www-form-urlencoded', opts);
  }

  json(body: unknown, opts?: SendOptions): Promise<SlackResponse> {
    return this.raw(JSON.stringify(body), 'application/json', opts);
  }

  command(
    command: string,
    text: string,
    who: {
      user?: string;
      userName?: string;
      channel?: string;
      team?: string;
      triggerId?: string;
      responseUrl?: string;
    } = {},
    opts?: SendOptions,
  ): Promise<SlackResponse> {
    const user = who.user ?? 'U0USER1';
    return this.form(
      {
        token: 'legacy-verification-token',
        team_id: who.team ?? this.team,
        team_domain: 'fake',
        channel_id: who.channel ?? 'C0GENERAL',
        channel_name: 'general',
        user_id: user,
        user_name: who.userName ?? user.toLowerCase(),
        command,
        text,
        api_app_id: 'A0APP',
        response_url: who.responseUrl ?? 'http://127.0.0.1:9/response-url-unused',
        trigger_id: who.triggerId ?? `trig-${++this.counter}-${randomUUID()}`,
        // As Slack posts a command to an org-wide app: the enterprise, and the flag as a string.
        ...(this.enterprise
          ? { enterprise_id: this.enterprise, enterprise_name: 'Fake Org', is_enterprise_install: 'true' }
          : {}),
      },
      opts,
    );
  }

  /** An Events API delivery; returns the event_id used (repeat it to test dedupe). */
  async event(
    event: Record<string, unknown>,
    opts: SendOptions & { eventId?: string; team?: string } = {},
  ): Promise<SlackResponse & { eventId: string }> {
    const eventId = opts.eventId ?? `Ev${Date.now()}${++this.counter}`;
    const res = await this.json(
      {
        token: 'legacy-verification-token',
        team_id: opts.team ?? this.team,
        api_app_id: 'A0APP',
        type: 'event_callback',
        event_id: eventId,
        event_time: Math.floor(Date.now() / 1000),
        event: { event_ts: event.ts, ...event },
        // An org-wide app's events name the enterprise, and the installation they are for.
        ...(this.enterprise
          ? {
              enterprise_id: this.enterprise,
              authorizations: [
                { enterprise_id: this.enterprise, team_id: null, is_bot: true, is_enterprise_install: true },
              ],
            }
          : {}),
      },
      opts,
    );
    return { ...res, eventId };
  }

  interaction(payload: Record<string, unknown>, opts?: SendOptions): Promise<SlackResponse> {
    const org = this.enterprise
      ? { enterprise: { id: this.enterprise, name: 'Fake Org' }, is_enterprise_install: true }
      : {};
    return this.form({ payload: JSON.stringify({ ...org, ...payload }) }, opts);
  }

  /** A click on a button of a message the bot posted (the block element as recorded by the fake). */
  click(
    button: { action_id: string; value?: string; block_id?: string },
    where: { channel: string; messageTs: string; threadTs?: string; ephemeral?: boolean; responseUrl?: string },
    who: { user?: string; team?: string } = {},
  ): Promise<SlackResponse> {
    const user = who.user ?? 'U0USER1';
    if (where.ephemeral) {
      // As Slack sends a click on an ephemeral message: no `message`, is_ephemeral, a response_url.
      return this.interaction({
        type: 'block_actions',
        user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: who.team ?? this.team },
        api_app_id: 'A0APP',
        token: 'legacy',
        container: { type: 'message', message_ts: where.messageTs, channel_id: where.channel, is_ephemeral: true },
        trigger_id: `trig-${++this.counter}`,
        team: { id: who.team ?? this.team, domain: 'fake' },
        channel: { id: where.channel, name: 'general' },
        response_url: where.responseUrl ?? 'http://127.0.0.1:9/response-url-unused',
        actions: [
          {
            type: 'button',
            action_id: button.action_id,
            block_id: button.block_id ?? 'b',
            value: button.value,
            action_ts: String(Date.now() / 1000),
          },
        ],
      });
    }
    return this.interaction({
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: who.team ?? this.team },
      api_app_id: 'A0APP',
      token: 'legacy',
      container: {
        type: 'message',
        message_ts: where.messageTs,
        channel_id: where.channel,
        is_ephemeral: false,
        ...(where.threadTs ? { thread_ts: where.threadTs } : {}),
      },
      trigger_id: `trig-${++this.counter}`,
      team: { id: who.team ?? this.team, domain: 'fake' },
      channel: { id: where.channel, name: 'general' },
      message: { type: 'message', ts: where.messageTs, ...(where.threadTs ? { thread_ts: where.threadTs } : {}) },
      response_url: 'http://127.0.0.1:9/response-url-unused',
      actions: [
        {
          type: 'button',
          action_id: button.action_id,
          block_id: button.block_id ?? 'b',
          value: button.value,
          action_ts: String(Date.now() / 1000),
        },
      ],
    });
  }

  /**
   * A press of one of a Work Object's actions (its flexpane's, as the fake recorded them): a
   * block_actions whose container is the entity, not a message of the app; without `channel` where
   * the flexpane was opened outside a conversation. No response_url: there is no message to answer.
   */
  pressEntityAction(
    action: { action_id: string; value?: string },
    entity: { id: string; url: string; channel?: string; messageTs?: string },
    who: { user?: string; team?: string } = {},
  ): Promise<SlackResponse> {
    const user = who.user ?? 'U0USER1';
    const team = who.team ?? this.team;
    return this.interaction({
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: team },
      api_app_id: 'A0APP',
      token: 'legacy',
      container: {
        type: 'entity_detail',
        entity_url: entity.url,
        external_ref: { id: entity.id, type: 'listing' },
        ...(entity.channel ? { channel_id: entity.channel } : {}),
        ...(entity.messageTs ? { message_ts: entity.messageTs } : {}),
      },
      trigger_id: `trig-${++this.counter}`,
      team: { id: team, domain: 'fake' },
      ...(entity.channel ? { channel: { id: entity.channel, name: 'general' } } : {}),
      actions: [
        {
          type: 'button',
          action_id: action.action_id,
          block_id: 'entity',
          value: action.value,
          action_ts: String(Date.now() / 1000),
        },
      ],
    });
  }

  /** Submit a modal the bot opened (as recorded by the fake) with `values` by block_id. */
  submitView(
    view: Record<string, unknown>,
    values: Record<string, string>,
    who: { user?: string; team?: string } = {},
  ): Promise<SlackResponse> {
    const user = who.user ?? 'U0USER1';
    const blocks = (view.blocks as Array<Record<string, unknown>>) ?? [];
    const state: Record<string, Record<string, unknown>> = {};
    for (const b of blocks) {
      if (b.type !== 'input') continue;
      const el = b.element as Record<string, unknown>;
      const blockId = String(b.block_id);
      const actionId = String(el.action_id);
      const given = values[blockId];
      const initial =
        (el.initial_value as string | undefined) ?? (el.initial_option as { value?: string } | undefined)?.value;
      const v = given ?? initial;
      if (el.type === 'static_select') {
        state[blockId] = {
          [actionId]: {
            type: 'static_select',
            selected_option: v === undefined || v === '' ? null : { value: v, text: { type: 'plain_text', text: v } },
          },
        };
      } else if (el.type === 'conversations_select') {
        const picked = given ?? (el.initial_conversation as string | undefined);
        state[blockId] = { [actionId]: { type: el.type, selected_conversation: picked || null } };
      } else {
        state[blockId] = { [actionId]: { type: el.type, value: v === undefined || v === '' ? null : v } };
      }
    }
    return this.interaction({
      type: 'view_submission',
      team: { id: who.team ?? this.team, domain: 'fake' },
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: who.team ?? this.team },
      api_app_id: 'A0APP',
      token: 'legacy',
      trigger_id: `trig-${++this.counter}`,
      view: {
        id: view.id ?? 'V0',
        type: 'modal',
        callback_id: view.callback_id,
        private_metadata: view.private_metadata ?? '',
        blocks,
        state: { values: state },
        hash: 'h',
      },
    });
  }
}

export { waitFor } from './wait-for';

/** A short name of a request for `lateAcks`: the slash command, the event type or the payload type. */
function describeRequest(body: string, contentType: string): string {
  if (contentType.includes('json')) {
    const parsed = describedSchema.safeParse(parseOrUndefined(body));
    return parsed.success ? `event ${parsed.data.event?.type ?? parsed.data.type ?? '?'}` : 'event';
  }
  const fields = parse(body);
  if (typeof fields.command === 'string') return fields.command;
  if (typeof fields.payload === 'string') {
    const parsed = describedSchema.safeParse(parseOrUndefined(fields.payload));
    return parsed.success ? `interaction ${parsed.data.type ?? '?'}` : 'interaction';
  }
  return 'request';
}

const describedSchema = z.object({
  type: z.string().optional(),
  event: z.object({ type: z.string().optional() }).optional(),
});

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
