/**
 * What tickets need from Slack besides messages: permalinks (chat.getPermalink), channel names
 * (conversations.info) and channel membership (conversations.members), each cached a short while;
 * and the App Home tab, which shows the handoff queue to members of the handoff channel and admins
 * (app_home_opened -> views.publish).
 *
 * The names and member lists are cached in the workspace's part of the state store
 * (surfaces/tenant-cache.ts), not in this process: membership makes an agent, which every instance
 * must judge alike, and a workspace that uninstalls takes its channels' copies with it.
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { BridgeCore, MessageRef, Place, SurfacePort } from '../../core/surface';
import type { StateStore } from '../../state/store';
import { renderMessage } from './blocks';
import { eventEnvelopeSchema } from './payloads';
import { firstDelivery } from './redelivery';
import type { UserNames } from './users';
import type { SlackGateway } from './gateway';
import { slackErrorCode } from './web';
import { TenantCache } from '../tenant-cache';

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

export class SlackDirectory {
  /** Per workspace and channel (its part of the store): the channel's name, null when Slack gave none. */
  private readonly names: TenantCache<string | null>;
  /** Per workspace and channel: its members' ids. */
  private readonly members: TenantCache<string[]>;

  constructor(
    private readonly gateway: SlackGateway,
    store: StateStore,
    private readonly log: Logger,
    /** The caches' clock (tests move it to see a list refreshed). */
    now: () => number = Date.now,
  ) {
    this.names = new TenantCache(store, 'slack', 'channel-name', now);
    this.members = new TenantCache(store, 'slack', 'channel-members', now);
  }

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
    if (place.channel.startsWith('D')) return 'direct message';
    const name = await this.names.get(place.workspace, place.channel, async () => {
      try {
        const res = channelInfoSchema.safeParse(
          await this.gateway.methodCall(place, 'conversations.info', { channel: place.channel }, 3),
        );
        return { value: (res.success ? res.data.channel.name : undefined) ?? null, ttlMs: CACHE_MS };
      } catch (err) {
        this.log.debug({ code: slackErrorCode(err) }, 'slack: conversations.info failed');
        return { value: null, ttlMs: CACHE_MS };
      }
    });
    return name ?? undefined;
  }

  async isMember(channel: Place, userId: string): Promise<boolean | undefined> {
    const ids = await this.memberIds(channel);
    return ids ? ids.has(userId) : undefined;
  }

  /**
   * The channel's members (conversations.members, kept CACHE_MS); undefined when Slack cannot tell,
   * which is kept by nobody: the next question asks Slack again.
   */
  async memberIds(channel: Place): Promise<Set<string> | undefined> {
    const ids = await this.members.get(channel.workspace, channel.channel, async () => {
      const got = await this.fetchMembers(channel);
      return got && { value: [...got], ttlMs: CACHE_MS };
    });
    return ids && new Set(ids);
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
      // The listeners' rule (users.ts): an org admin or owner of an org-wide install is an admin here too.
      const viewer = await d.users.actor(team, userId, d.adminUsers);
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
