/**
 * What tickets need from Slack besides messages: permalinks (chat.getPermalink), channel names
 * (conversations.info) and channel membership (conversations.members), each cached a short while;
 * and the App Home tab, which shows the handoff queue to members of the handoff channel and admins
 * (app_home_opened -> views.publish).
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Actor, BridgeCore, MessageRef, Place, SurfacePort } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { renderMessage } from './blocks';
import { eventEnvelopeSchema } from './payloads';
import { firstDelivery } from './redelivery';
import type { UserNames } from './users';
import type { SlackGateway } from './gateway';
import { slackErrorCode } from './web';

const CACHE_MS = 60_000;
const MAX_MEMBER_PAGES = 20;

const permalinkSchema = z.object({ permalink: z.string().url() });
const memberSchema = z.object({ channel: z.object({ is_member: z.boolean().optional() }) });
const channelInfoSchema = z.object({ channel: z.object({ name: z.string().min(1).optional() }).passthrough() });
const membersSchema = z.object({
  members: z.array(z.string()),
  response_metadata: z.object({ next_cursor: z.string().optional() }).passthrough().optional(),
});
const homeOpenedSchema = z.object({
  type: z.literal('app_home_opened'),
  user: z.string().min(1),
  tab: z.string().optional(),
});

/** Channels remembered at most by each of the directory's caches (the oldest forgotten first). */
const MAX_CACHED = 5_000;

/** Keyed by workspace and channel, and bounded: what one workspace's channel showed is never another's. */
function keep<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CACHED) map.delete(map.keys().next().value as string);
}

export class SlackDirectory {
  private readonly names = new Map<string, { until: number; name: string | undefined }>();
  private readonly members = new Map<string, { until: number; ids: Promise<Set<string> | undefined> }>();

  constructor(
    private readonly gateway: SlackGateway,
    private readonly log: Logger,
    /** The caches' clock (tests move it to see a list refreshed). */
    private readonly now: () => number = Date.now,
  ) {}

  async permalink(ref: MessageRef): Promise<string | undefined> {
    if (!ref.id) return undefined;
    try {
      const res = permalinkSchema.safeParse(
        await this.gateway.methodCall(
          ref.place,
          'chat.getPermalink',
          { channel: ref.place.channel, message_ts: ref.id },
          4,
        ),
      );
      return res.success ? res.data.permalink : undefined;
    } catch (err) {
      this.log.debug({ code: slackErrorCode(err) }, 'slack: chat.getPermalink failed');
      return undefined;
    }
  }

  /**
   * Why the bridge cannot post in the channel (conversations.info: unknown to this workspace's token,
   * or the bridge is not a member); undefined when it can.
   */
  async cannotPostIn(place: Place): Promise<string | undefined> {
    let info: unknown;
    try {
      info = await this.gateway.methodCall(place, 'conversations.info', { channel: place.channel }, 3);
    } catch (err) {
      const code = slackErrorCode(err);
      return code === 'channel_not_found'
        ? 'this workspace has no such channel that the bridge can see. Invite the bridge to it (/invite @bridge) and try again.'
        : `Slack refused conversations.info (${code ?? 'unknown error'}).`;
    }
    const member = memberSchema.safeParse(info);
    if (member.success && member.data.channel.is_member === false)
      return 'the bridge is not a member of that channel. Invite it (/invite @bridge) and try again.';
    return undefined;
  }

  async channelName(place: Place): Promise<string | undefined> {
    const hit = this.names.get(`${place.workspace}:${place.channel}`);
    if (hit && hit.until > this.now()) return hit.name;
    let name: string | undefined;
    if (place.channel.startsWith('D')) name = 'direct message';
    else {
      try {
        const res = channelInfoSchema.safeParse(
          await this.gateway.methodCall(place, 'conversations.info', { channel: place.channel }, 3),
        );
        name = res.success ? res.data.channel.name : undefined;
      } catch (err) {
        this.log.debug({ code: slackErrorCode(err) }, 'slack: conversations.info failed');
      }
    }
    keep(this.names, `${place.workspace}:${place.channel}`, { until: this.now() + CACHE_MS, name });
    return name;
  }

  async isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    const ids = await this.memberIds(channel);
    return ids ? ids.has(userId) : undefined;
  }

  /** The channel's members (conversations.members, the same cache); undefined when Slack cannot tell. */
  memberIds(channel: Place): Promise<Set<string> | undefined> {
    let hit = this.members.get(`${channel.workspace}:${channel.channel}`);
    if (!hit || hit.until <= this.now()) {
      hit = { until: this.now() + CACHE_MS, ids: this.fetchMembers(channel) };
      keep(this.members, `${channel.workspace}:${channel.channel}`, hit);
    }
    return hit.ids;
  }

  private async fetchMembers(place: Place): Promise<Set<string> | undefined> {
    const channel = place.channel;
    const ids = new Set<string>();
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
        const res = membersSchema.parse(
          await this.gateway.methodCall(
            place,
            'conversations.members',
            { channel, limit: 1000, ...(cursor ? { cursor } : {}) },
            4,
          ),
        );
        for (const id of res.members) ids.add(id);
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return ids;
    } catch (err) {
      this.log.debug({ code: slackErrorCode(err) }, 'slack: conversations.members failed');
      this.members.delete(`${place.workspace}:${channel}`);
      return undefined;
    }
  }
}

export interface HomeDeps {
  app: App;
  /** The Slack port (typed by what the Home uses, so home.ts needs nothing of port.ts, which needs its directory). */
  port: SurfacePort & { readonly gateway: SlackGateway };
  store: StateStore;
  users: UserNames;
  log: Logger;
  adminUsers: readonly string[];
  core: () => BridgeCore | undefined;
}

/** App Home: the queue for agents and admins, a short explanation for everyone else. */
export function registerHome(d: HomeDeps): void {
  d.app.event('app_home_opened', async ({ body, event, context }) => {
    try {
      const opened = homeOpenedSchema.safeParse(event);
      if (!opened.success || (opened.data.tab && opened.data.tab !== 'home')) return;
      if (!(await firstDelivery(d.store, body, opened.data.user))) return;
      const env = eventEnvelopeSchema.safeParse(body);
      const core = d.core();
      if (!core?.handoffQueue) return;
      const userId = opened.data.user;
      // The workspace whose Home this is: the viewer is looked up there, and only its queue shows.
      const team = (env.success ? env.data.team_id : undefined) ?? context.teamId ?? context.enterpriseId ?? '';
      const isAdmin = d.adminUsers.includes(userId) || (await d.users.isWorkspaceAdmin(team, userId));
      const viewer: Actor = { id: userId, name: await d.users.name(team, userId), isAdmin };
      const queue = await core.handoffQueue(viewer, d.port, team);
      const msg = queue ?? {
        text: 'The handoff queue shows here for members of the handoff channel and for admins. Use /ask to talk to the chatbot.',
      };
      const { blocks } = renderMessage(msg);
      const place: Place = { surface: 'slack', workspace: team, channel: userId };
      await d.port.gateway.methodCall(place, 'views.publish', { user_id: userId, view: { type: 'home', blocks } }, 4);
    } catch (err) {
      d.log.error({ err }, 'slack: App Home failed');
    }
  });
}
