/**
 * A fake Discord for end-to-end tests: the REST API under `/api/v10` and a gateway WebSocket on the
 * same port. It is strict where the real platform is (2,000-character content, embed and component
 * limits, per-channel rate limits with 429 + Retry-After) and records every call so tests can assert
 * what the bot did. Payloads are shaped like Discord's so discord.js parses them unchanged.
 */
import { componentsV2Problem, IS_COMPONENTS_V2 } from './fake-discord-cv2';
import { modalInputs, modalProblem, modalSubmitData, type ModalInput } from './fake-discord-modals';
import { botHas, CREATE_PUBLIC_THREADS, EVERYONE_PERMISSIONS, MISSING_PERMISSIONS } from './fake-discord-permissions';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const DISCORD_EPOCH = 1420070400000n;
let snowflakeSeq = 0n;
/** Increasing snowflakes, like Discord's (time in the high bits). */
export function snowflake(): string {
  snowflakeSeq = (snowflakeSeq + 1n) & 0x3fffffn;
  return (((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | snowflakeSeq).toString();
}

export interface FakeUser {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
}

export interface FakeMember {
  user: FakeUser;
  roles: string[];
  nick?: string | null;
  /** The member's permissions in the interaction's channel (default: a member's everyday ones, no Manage Server). */
  permissions?: string;
}

export interface FakeChannel {
  id: string;
  /** 0 guild text, 1 DM, 11/12 threads. */
  type: number;
  name: string;
  /** Absent for a DM channel. */
  guild_id?: string;
  parent_id?: string | null;
  owner_id?: string;
  /** A DM channel's other party. */
  recipients?: FakeUser[];
  /** A guild channel's permission overwrites (none: the roles' permissions apply as they are). */
  permission_overwrites?: FakeOverwrite[];
}

/** A channel permission overwrite as Discord sends it: type 0 a role (the guild id is @everyone), 1 a member. */
export interface FakeOverwrite {
  id: string;
  type: 0 | 1;
  /** Permission bitfields as decimal strings. */
  allow: string;
  deny: string;
}

/** Discord's VIEW_CHANNEL permission bit. */
export const VIEW_CHANNEL = 1n << 10n;
/** Discord's SEND_MESSAGES permission bit. */
export const SEND_MESSAGES = 1n << 11n;

/** Gateway intents the fake honours when dispatching messages. */
export const INTENTS = {
  guilds: 1 << 0,
  guildMessages: 1 << 9,
  directMessages: 1 << 12,
  messageContent: 1 << 15,
} as const;
const DM_CHANNEL = 1;

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
  data?: Buffer;
}

export interface FakeEmbed {
  title?: string;
  description?: string;
  url?: string;
  footer?: { text: string };
  image?: { url: string };
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  author?: { name: string };
  [k: string]: unknown;
}

export interface FakeComponent {
  type: number;
  custom_id?: string;
  label?: string;
  style?: number;
  url?: string;
  components?: FakeComponent[];
  [k: string]: unknown;
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  embeds: FakeEmbed[];
  components: FakeComponent[];
  attachments: FakeAttachment[];
  flags: number;
  timestamp: string;
  edited_timestamp: string | null;
  webhook_id?: string;
  mentions: FakeUser[];
  /** Every content this message had, in order (the first is the posted one). */
  history: string[];
  /** When each version of `history` was shown (epoch ms). */
  historyAt: number[];
  deleted: boolean;
  /** Interaction id when the message is an interaction response or follow-up. */
  interactionId?: string;
  ephemeral: boolean;
  /** A reply's reference to the message it answers (Discord's `message_reference`; type 19). */
  message_reference?: { message_id: string; channel_id: string; guild_id?: string };
}

export interface RecordedCall {
  method: string;
  /** Path after /api/v10, without the query string. */
  path: string;
  query: string;
  body: unknown;
  status: number;
  at: number;
  /** When the answer was sent (epoch ms). */
  doneAt: number;
  /** Whether the body was multipart/form-data, and the files it carried (name and bytes). */
  multipart: boolean;
  files: Array<{ name: string; data: Buffer }>;
  /** On a 429: the wait announced by Retry-After, in ms. */
  retryAfterMs?: number;
}

/** Discord forgets an interaction not answered (callback) within 3 s of its creation. */
const INTERACTION_ACK_WINDOW_MS = 3000;

export interface InteractionRecord {
  id: string;
  token: string;
  type: number;
  channelId: string;
  user: FakeUser;
  /** Each callback the bot sent (type 4 reply, 5 deferred, 6 deferred update, 7 update, 8 autocomplete, 9 modal). */
  callbacks: Array<{ type: number; data: Record<string, unknown> | undefined; at: number }>;
  createdAt: number;
  /** The message that carries the original response (reply/deferred) or the component's message. */
  originalMessageId?: string;
  sourceMessageId?: string;
}

export interface FakeDiscordOptions {
  token?: string;
  applicationId?: string;
  guildId?: string;
  /** Per-channel message create+edit budget: `limit` per `windowMs` (sliding). Default 5 per 5 s. */
  channelLimit?: { limit: number; windowMs: number };
  /**
   * The bot's global limit (Discord: 50 requests a second, interaction callbacks and webhooks not
   * counted): a call beyond it answers 429 with `global: true`. Off unless given.
   */
  globalLimit?: { limit: number; windowMs: number };
  heartbeatIntervalMs?: number;
  /**
   * Variations a different (still faithful) Discord could show, so the bot is proven not to rely on
   * this fake's habits: GUILD_CREATE listing only @everyone among the roles (members keep theirs);
   * threads refused on messages that are interaction responses (404 Unknown Message), or on every
   * message, leaving only POST /channels/:id/threads.
   */
  quirks?: { guildRolesListed?: boolean; threadOnMessage?: 'all' | 'not-interaction-replies' | 'none' };
  /**
   * Whether the app has the privileged Server Members Intent (GUILD_MEMBERS) enabled: without it,
   * List Guild Members answers 403 Missing Access, as Discord does. Default true.
   */
  membersIntent?: boolean;
}

type Json = Record<string, unknown>;

interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(`HTTP ${status}`);
  }
}

function invalidForm(path: string, message: string, code = 'BASE_TYPE_MAX_LENGTH'): HttpError {
  const errors: Json = {};
  let node: Json = errors;
  const parts = path.split('.');
  parts.forEach((p, i) => {
    if (i === parts.length - 1) node[p] = { _errors: [{ code, message }] };
    else {
      const next: Json = {};
      node[p] = next;
      node = next;
    }
  });
  return new HttpError(400, { code: 50035, message: 'Invalid Form Body', errors });
}

/** Splits a multipart/form-data body into its named parts. */
function parseMultipart(
  buf: Buffer,
  contentType: string,
): Array<{ name: string; filename?: string; type?: string; data: Buffer }> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!m) throw new HttpError(400, { code: 50109, message: 'The request body contains invalid JSON.' });
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: Array<{ name: string; filename?: string; type?: string; data: Buffer }> = [];
  let pos = buf.indexOf(boundary);
  while (pos >= 0) {
    const start = pos + boundary.length;
    if (buf.slice(start, start + 2).toString() === '--') break;
    const headerEnd = buf.indexOf('\r\n\r\n', start);
    const next = buf.indexOf(boundary, headerEnd);
    if (headerEnd < 0 || next < 0) break;
    const headers = buf.slice(start + 2, headerEnd).toString();
    const data = buf.slice(headerEnd + 4, next - 2);
    const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
    parts.push({ name, filename, type, data });
    pos = next;
  }
  return parts;
}

export class FakeDiscord {
  readonly token: string;
  readonly applicationId: string;
  readonly guildId: string;
  readonly botUser: FakeUser;
  readonly calls: RecordedCall[] = [];
  /** Emits 'change' whenever what the fake holds changes: pass it to waitFor (fakes/wait-for.ts). */
  readonly changes = new EventEmitter();
  /** Registered commands per scope: 'global' or the guild id. */
  readonly commands = new Map<string, Json[]>();
  /**
   * Servers besides the main one (addGuild): their system channel, and whether READY lists them (the
   * bot was in them already) or they arrive later (joinGuild: the bot is invited).
   */
  readonly otherGuilds = new Map<string, { name: string; systemChannelId?: string; inReady: boolean }>();
  /** Servers the bot is not in (addStrangerServer). */
  readonly strangerGuilds = new Set<string>();
  readonly channels = new Map<string, FakeChannel>();
  /** The guild's roles besides @everyone (with no permissions of their own: channel overwrites grant them). */
  readonly roles: Array<{ id: string; name: string }> = [];
  readonly members = new Map<string, FakeMember>();
  /** How many List Guild Members calls were made, refused ones included (the bridge caches the roster). */
  memberListCalls = 0;
  membersIntent: boolean;
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, InteractionRecord>();
  /**
   * Interaction callbacks that came after Discord's 3 s window (INTERACTION_ACK_WINDOW_MS): refused
   * with 404 10062 "Unknown interaction", as Discord does, and recorded here.
   */
  readonly lateCallbacks: Array<{ interactionId: string; afterMs: number }> = [];
  readonly files = new Map<string, { data: Buffer; type: string }>();
  /** Every 429 the fake answered. */
  rateLimitHits = 0;
  /** Downloads of files served by addFile (attachments the bot fetched). */
  fileFetches = 0;
  identifies = 0;
  /** The intents bitfield of the latest IDENTIFY. */
  lastIntents = 0;
  heartbeatAcks = 0;

  private readonly channelLimit: { limit: number; windowMs: number };
  private readonly globalLimit: { limit: number; windowMs: number } | undefined;
  /** When the bot's calls counted by globalLimit were made, within its window. */
  private globalLog: number[] = [];
  private readonly heartbeatIntervalMs: number;
  private readonly quirks: NonNullable<FakeDiscordOptions['quirks']>;
  private readonly rateLog = new Map<string, number[]>();
  private server?: Server;
  private wss?: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly ready = new Set<WebSocket>();
  /** The intents each identified connection asked for. */
  private readonly intents = new Map<WebSocket, number>();
  private seq = 0;
  private port = 0;
  private forced:
    | { count: number; retryAfterSec: number; match: (method: string, path: string) => boolean }
    | undefined;
  private readonly revokedTokens = new Set<string>();

  constructor(opts: FakeDiscordOptions = {}) {
    this.token = opts.token ?? 'fake-discord-token.secret';
    this.applicationId = opts.applicationId ?? snowflake();
    this.guildId = opts.guildId ?? snowflake();
    this.channelLimit = opts.channelLimit ?? { limit: 5, windowMs: 5000 };
    this.globalLimit = opts.globalLimit;
    this.heartbeatIntervalMs = opts.heartbeatIntervalMs ?? 5000;
    this.quirks = opts.quirks ?? {};
    /** False: the app lacks the privileged Server Members Intent (List Guild Members is refused). */
    this.membersIntent = opts.membersIntent ?? true;
    this.botUser = { id: this.applicationId, username: 'bridge-bot', global_name: null, bot: true };
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** Adds a text channel to the guild (call before start, or the bot learns of it only by id). */
  addChannel(name: string, id = snowflake(), guildId = this.guildId): FakeChannel {
    const ch: FakeChannel = { id, type: 0, name, guild_id: guildId, parent_id: null };
    this.channels.set(id, ch);
    return ch;
  }

  /**
   * Another server with a `general` channel (its system channel unless `systemChannel` is false).
   * `inReady`: the bot is in it already (READY lists it, its GUILD_CREATE follows); otherwise it
   * arrives only when a test calls joinGuild.
   */
  addGuild(opts: { name?: string; inReady?: boolean; systemChannel?: boolean } = {}): {
    id: string;
    general: FakeChannel;
  } {
    const id = snowflake();
    const general = this.addChannel('general', snowflake(), id);
    this.otherGuilds.set(id, {
      name: opts.name ?? `Guild ${this.otherGuilds.size + 2}`,
      inReady: opts.inReady ?? false,
      ...(opts.systemChannel === false ? {} : { systemChannelId: general.id }),
    });
    return { id, general };
  }

  /**
   * A server the bot was never added to, with a `general` channel: only a user's own install of the
   * app reaches it (slashCommand with `install: 'user'`), and every bot route on its channels answers
   * 403 Missing Access, as Discord does (no message, no thread, no channel read).
   */
  addStrangerServer(): { id: string; general: FakeChannel } {
    const id = snowflake();
    this.strangerGuilds.add(id);
    return { id, general: this.addChannel('general', snowflake(), id) };
  }

  /** The bot is invited back to the main server after leaving it (leaveGuild): its GUILD_CREATE again. */
  rejoinMainGuild(): void {
    this.dispatch('GUILD_CREATE', this.guildPayload(), INTENTS.guilds);
  }

  /** The bot is invited to a server: GUILD_CREATE for a guild READY did not list. */
  joinGuild(guildId: string): void {
    const g = this.otherGuilds.get(guildId);
    if (!g) throw new Error(`no guild ${guildId}`);
    g.inReady = true;
    this.dispatch('GUILD_CREATE', this.guildPayload({ guildId }), INTENTS.guilds);
  }

  /**
   * The bot is removed from a server (GUILD_DELETE without `unavailable`), or the server has an
   * outage (`unavailable: true`: Discord sends the same event, and the bot is still in it).
   */
  leaveGuild(guildId: string, opts: { unavailable?: boolean } = {}): void {
    if (!opts.unavailable) this.otherGuilds.delete(guildId);
    this.dispatch('GUILD_DELETE', { id: guildId, ...(opts.unavailable ? { unavailable: true } : {}) }, INTENTS.guilds);
  }

  private knowsGuild(guildId: string | undefined): boolean {
    return guildId === this.guildId || (guildId !== undefined && this.otherGuilds.has(guildId));
  }

  /** The guild a channel belongs to (the main one for a channel the fake does not know). */
  guildOf(channelId: string): string {
    return this.channels.get(channelId)?.guild_id ?? this.guildId;
  }

  /** The DM channel between the bot and a member (Discord has one per pair), created on first use. */
  openDm(member: FakeMember): FakeChannel {
    const existing = [...this.channels.values()].find(
      (c) => c.type === DM_CHANNEL && c.recipients?.[0]?.id === member.user.id,
    );
    if (existing) return existing;
    const ch: FakeChannel = { id: snowflake(), type: DM_CHANNEL, name: '', recipients: [member.user] };
    this.channels.set(ch.id, ch);
    return ch;
  }

  isDm(channelId: string): boolean {
    return this.channels.get(channelId)?.type === DM_CHANNEL;
  }

  addRole(name: string, id = snowflake()): string {
    this.roles.push({ id, name });
    return id;
  }

  /**
   * Replaces a guild channel's permission overwrites; a connected bot learns of it by CHANNEL_UPDATE
   * (Guilds intent), as on Discord.
   */
  setOverwrites(channelId: string, overwrites: FakeOverwrite[]): void {
    const ch = this.channels.get(channelId);
    if (!ch || ch.type === DM_CHANNEL) throw new Error(`no guild channel ${channelId}`);
    ch.permission_overwrites = overwrites;
    this.dispatch('CHANNEL_UPDATE', this.channelPayload(ch), INTENTS.guilds);
    this.changes.emit('change');
  }

  addMember(username: string, roles: string[] = [], opts: { bot?: boolean; id?: string } = {}): FakeMember {
    const member: FakeMember = {
      user: { id: opts.id ?? snowflake(), username, global_name: username, bot: opts.bot ?? false },
      roles,
      nick: null,
    };
    this.members.set(member.user.id, member);
    return member;
  }

  /** Serves a file (an attachment a user posts) at a URL on this server. */
  addFile(name: string, data: Buffer, type: string): FakeAttachment {
    const id = snowflake();
    this.files.set(`${id}/${name}`, { data, type });
    const url = `http://127.0.0.1:${this.port}/attachments/${id}/${name}`;
    return { id, filename: name, size: data.length, url, proxy_url: url, content_type: type };
  }

  async start(): Promise<void> {
    this.channels.set(this.guildId, { id: this.guildId, type: 0, name: 'general', guild_id: this.guildId });
    this.server = createServer((req, res) => {
      this.handleHttp(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (ws) => this.onSocket(ws));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    await new Promise<void>((resolve) => (this.wss ? this.wss.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  /**
   * A 429 storm: the next `count` channel message creates/edits (or those `match` accepts) answer
   * 429 with Retry-After `retryAfterSec` and Discord's X-RateLimit headers, whatever the budget says.
   */
  force429(opts: { count: number; retryAfterSec: number; match?: (method: string, path: string) => boolean }): void {
    this.forced = { count: opts.count, retryAfterSec: opts.retryAfterSec, match: opts.match ?? (() => true) };
  }

  /** Calls still to be refused by force429. */
  get forced429Left(): number {
    return this.forced?.count ?? 0;
  }

  /**
   * Makes an interaction's token invalid, as Discord does 15 minutes after the interaction: every
   * webhook call with it answers 401 Invalid Webhook Token.
   */
  revokeInteractionToken(rec: InteractionRecord): void {
    this.revokedTokens.add(rec.token);
  }

  /** Number of connections that identified and got READY. */
  get connectedBots(): number {
    return this.ready.size;
  }

  // ---------------------------------------------------------------- queries for tests

  channelMessages(channelId: string, opts: { includeEphemeral?: boolean } = {}): FakeMessage[] {
    return [...this.messages.values()]
      .filter((m) => m.channel_id === channelId && !m.deleted && (opts.includeEphemeral || !m.ephemeral))
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  threadsOf(parentId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.parent_id === parentId);
  }

  callsTo(method: string, pattern: RegExp): RecordedCall[] {
    return this.calls.filter((c) => c.method === method && pattern.test(c.path));
  }

  private changed(): void {
    this.changes.emit('change');
  }

  // ---------------------------------------------------------------- gateway

  private send(ws: WebSocket, payload: Json): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(payload));
  }

  /** Sends a dispatch (op 0) to every identified connection (to those with `intent`, when given). */
  dispatch(t: string, d: unknown, intent?: number): void {
    for (const ws of this.ready) {
      if (intent !== undefined && ((this.intents.get(ws) ?? 0) & intent) === 0) continue;
      this.seq += 1;
      this.send(ws, { op: 0, t, s: this.seq, d });
    }
  }

  /**
   * Message events reach a bot only with the intent of their channel's kind, as on Discord; creates
   * and updates carry the channel's type (Discord's `channel_type` extra field).
   */
  private dispatchMessageEvent(t: string, channelId: string, d: Json): void {
    const type = this.channels.get(channelId)?.type;
    const data = t === 'MESSAGE_DELETE' || type === undefined ? d : { ...d, channel_type: type };
    this.dispatch(t, data, this.isDm(channelId) ? INTENTS.directMessages : INTENTS.guildMessages);
  }

  private onSocket(ws: WebSocket): void {
    this.sockets.add(ws);
    this.send(ws, { op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.ready.delete(ws);
      this.intents.delete(ws);
      this.changed();
    });
    ws.on('message', (raw) => {
      let msg: { op?: number; d?: Json };
      try {
        msg = JSON.parse(raw.toString()) as { op?: number; d?: Json };
      } catch {
        ws.close(4002, 'Decode error');
        return;
      }
      switch (msg.op) {
        case 1:
          this.heartbeatAcks += 1;
          this.send(ws, { op: 11, d: null, s: null, t: null });
          break;
        case 2: {
          const token = String(msg.d?.token ?? '').replace(/^Bot /, '');
          if (token !== this.token) {
            ws.close(4004, 'Authentication failed.');
            return;
          }
          this.identifies += 1;
          this.lastIntents = Number(msg.d?.intents ?? 0);
          this.intents.set(ws, this.lastIntents);
          this.ready.add(ws);
          this.seq += 1;
          this.send(ws, {
            op: 0,
            t: 'READY',
            s: this.seq,
            d: {
              v: 10,
              user: { ...this.botUser, discriminator: '0', avatar: null, verified: true, flags: 0 },
              guilds: [this.guildId, ...[...this.otherGuilds].filter(([, g]) => g.inReady).map(([id]) => id)].map(
                (id) => ({ id, unavailable: true }),
              ),
              session_id: `session-${snowflake()}`,
              resume_gateway_url: this.gatewayUrl,
              shard: [0, 1],
              application: { id: this.applicationId, flags: 0 },
              private_channels: [],
            },
          });
          for (const guildId of [
            this.guildId,
            ...[...this.otherGuilds].filter(([, g]) => g.inReady).map(([id]) => id),
          ]) {
            this.seq += 1;
            this.send(ws, { op: 0, t: 'GUILD_CREATE', s: this.seq, d: this.guildPayload({ guildId }) });
          }
          this.changed();
          break;
        }
        case 6:
          this.ready.add(ws);
          this.seq += 1;
          this.send(ws, { op: 0, t: 'RESUMED', s: this.seq, d: null });
          break;
        default:
          break;
      }
    });
  }

  private userPayload(u: FakeUser): Json {
    return {
      id: u.id,
      username: u.username,
      global_name: u.global_name ?? null,
      discriminator: '0',
      avatar: null,
      bot: u.bot ?? false,
    };
  }

  private memberPayload(m: FakeMember): Json {
    return {
      user: this.userPayload(m.user),
      roles: m.roles,
      nick: m.nick ?? null,
      joined_at: new Date(0).toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      permissions: m.permissions ?? '2248473465835073',
    };
  }

  private channelPayload(c: FakeChannel): Json {
    if (c.type === DM_CHANNEL) {
      return {
        id: c.id,
        type: DM_CHANNEL,
        last_message_id: null,
        flags: 0,
        recipients: (c.recipients ?? []).map((u) => this.userPayload(u)),
      };
    }
    const base: Json = { id: c.id, type: c.type, name: c.name, guild_id: c.guild_id, parent_id: c.parent_id ?? null };
    if (c.type === 11 || c.type === 12) {
      base.owner_id = c.owner_id ?? this.botUser.id;
      base.thread_metadata = {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      };
      base.member_count = 1;
      base.message_count = 0;
    } else {
      base.position = 0;
      base.permission_overwrites = c.permission_overwrites ?? [];
    }
    return base;
  }

  private guildPayload(opts: { allRoles?: boolean; guildId?: string } = {}): Json {
    const guildId = opts.guildId ?? this.guildId;
    const other = this.otherGuilds.get(guildId);
    const bot: FakeMember = { user: this.botUser, roles: [] };
    const inGuild = [...this.channels.values()].filter((c) => c.guild_id === guildId);
    const channels = inGuild.filter((c) => c.type !== 11 && c.type !== 12);
    const threads = inGuild.filter((c) => c.type === 11 || c.type === 12);
    return {
      id: guildId,
      name: other?.name ?? 'Fake Guild',
      system_channel_id: other?.systemChannelId ?? null,
      icon: null,
      owner_id: snowflake(),
      unavailable: false,
      member_count: this.members.size + 1,
      large: false,
      joined_at: new Date(0).toISOString(),
      features: [],
      emojis: [],
      stickers: [],
      roles: [
        {
          id: guildId,
          name: '@everyone',
          permissions: EVERYONE_PERMISSIONS,
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
        ...(other || (this.quirks.guildRolesListed === false && !opts.allRoles) ? [] : this.roles).map((r, i) => ({
          id: r.id,
          name: r.name,
          permissions: '0',
          position: i + 1,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        })),
      ],
      channels: channels.map((c) => this.channelPayload(c)),
      threads: threads.map((c) => this.channelPayload(c)),
      members: [bot, ...this.members.values()].map((m) => this.memberPayload(m)),
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      premium_tier: 0,
      preferred_locale: 'en-US',
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      system_channel_flags: 0,
    };
  }

  // ---------------------------------------------------------------- dispatch helpers for tests

  private messagePayload(m: FakeMessage): Json {
    return {
      id: m.id,
      channel_id: m.channel_id,
      guild_id: m.guild_id,
      author: this.userPayload(m.author),
      content: m.content,
      embeds: m.embeds,
      components: m.components,
      attachments: m.attachments.map(({ data: _data, ...a }) => a),
      flags: m.flags,
      timestamp: m.timestamp,
      edited_timestamp: m.edited_timestamp,
      tts: false,
      mention_everyone: false,
      mentions: m.mentions.map((u) => this.userPayload(u)),
      mention_roles: [],
      pinned: false,
      type: m.message_reference ? 19 : 0,
      ...(m.message_reference ? { message_reference: m.message_reference } : {}),
      ...(m.webhook_id ? { webhook_id: m.webhook_id } : {}),
    };
  }

  /** A user (or a bot/webhook, for ignore tests) posts a message; dispatched as MESSAGE_CREATE. */
  userMessage(opts: {
    channelId: string;
    member: FakeMember;
    content: string;
    mentionsBot?: boolean;
    attachments?: FakeAttachment[];
    webhookId?: string;
  }): FakeMessage {
    const content = opts.mentionsBot ? `<@${this.botUser.id}> ${opts.content}` : opts.content;
    const msg = this.storeMessage({
      channel_id: opts.channelId,
      author: opts.member.user,
      content,
      attachments: opts.attachments ?? [],
      mentions: opts.mentionsBot ? [this.botUser] : [],
      webhook_id: opts.webhookId,
    });
    // A DM carries neither guild_id nor member.
    const payload = this.isDm(opts.channelId)
      ? this.messagePayload(msg)
      : { ...this.messagePayload(msg), member: this.memberNoUser(opts.member) };
    this.dispatchMessageEvent('MESSAGE_CREATE', opts.channelId, payload);
    return msg;
  }

  private memberNoUser(m: FakeMember): Json {
    const { user: _u, ...rest } = this.memberPayload(m);
    return rest;
  }

  /** A direct message from a member to the bot, in their DM channel (opened if need be). */
  directMessage(opts: { member: FakeMember; content: string; attachments?: FakeAttachment[] }): FakeMessage {
    return this.userMessage({
      channelId: this.openDm(opts.member).id,
      member: opts.member,
      content: opts.content,
      attachments: opts.attachments,
    });
  }

  private newInteraction(
    type: number,
    channelId: string,
    member: FakeMember,
    data: Json,
    message?: FakeMessage,
    install?: 'user',
  ): InteractionRecord {
    const rec: InteractionRecord = {
      id: snowflake(),
      token: `itoken-${snowflake()}`,
      type,
      channelId,
      user: member.user,
      callbacks: [],
      createdAt: Date.now(),
      sourceMessageId: message?.id,
    };
    this.interactions.set(rec.id, rec);
    const ch = this.channels.get(channelId);
    // Who authorized it: the server's install (its id under "0") or, for a user's own install, the
    // user (under "1"); a DM with the bot is authorized by the install that offers the command there.
    const owners =
      install === 'user'
        ? { '1': member.user.id }
        : ch?.type === DM_CHANNEL
          ? { '0': '0' }
          : { '0': this.guildOf(channelId) };
    // In a DM, Discord sends the user instead of a member, and no guild.
    const where =
      ch?.type === DM_CHANNEL
        ? { user: this.userPayload(member.user), context: 1 }
        : {
            guild_id: this.guildOf(channelId),
            guild: { id: this.guildOf(channelId), locale: 'en-US', features: [] },
            member: this.memberPayload(member),
            guild_locale: 'en-US',
            context: 0,
          };
    this.dispatch('INTERACTION_CREATE', {
      id: rec.id,
      application_id: this.applicationId,
      type,
      data,
      ...where,
      channel_id: channelId,
      channel: ch ? this.channelPayload(ch) : { id: channelId, type: 0 },
      token: rec.token,
      version: 1,
      app_permissions: '2248473465835073',
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: owners,
      ...(message ? { message: this.messagePayload(message) } : {}),
    });
    return rec;
  }

  /**
   * A slash command. `options` are Discord's option objects; for a subcommand pass
   * `subcommand` and its options.
   */
  slashCommand(opts: {
    name: string;
    channelId: string;
    member: FakeMember;
    subcommand?: string;
    options?: Array<{ name: string; type: number; value: string | number | boolean }>;
    /**
     * 'user': run through the user's own install of the app (the only way in a server the bot is not
     * in: addStrangerServer): offered only by a global command whose `integration_types` has 1 and
     * whose `contexts` has the place's (0 a server, 1 the bot's DM).
     */
    install?: 'user';
  }): InteractionRecord {
    const inDm = this.isDm(opts.channelId);
    if (opts.install === 'user' || this.strangerGuilds.has(this.guildOf(opts.channelId))) {
      const context = inDm ? 1 : 0;
      const cmd = (this.commands.get('global') ?? []).find(
        (c) =>
          c.name === opts.name &&
          Array.isArray(c.integration_types) &&
          c.integration_types.includes(1) &&
          Array.isArray(c.contexts) &&
          c.contexts.includes(context),
      );
      if (!cmd) throw new Error(`/${opts.name} is not offered to a user's own install here (context ${context})`);
      const options = opts.subcommand
        ? [{ type: 1, name: opts.subcommand, options: opts.options ?? [] }]
        : (opts.options ?? []);
      return this.newInteraction(
        2,
        opts.channelId,
        opts.member,
        { id: cmd.id, name: opts.name, type: 1, options },
        undefined,
        'user',
      );
    }
    // Guild commands never show in DMs; a global one shows there only when its contexts allow DMs.
    const registered = inDm
      ? (this.commands.get('global') ?? [])
      : [...(this.commands.get(this.guildOf(opts.channelId)) ?? []), ...(this.commands.get('global') ?? [])];
    const cmd = registered.find(
      (c) =>
        c.name === opts.name &&
        (!inDm || (Array.isArray(c.contexts) ? c.contexts.includes(1) : c.dm_permission !== false)),
    );
    if (inDm && !cmd) throw new Error(`/${opts.name} is not offered in DMs (no global command allowing the bot's DMs)`);
    const options = opts.subcommand
      ? [{ type: 1, name: opts.subcommand, options: opts.options ?? [] }]
      : (opts.options ?? []);
    return this.newInteraction(2, opts.channelId, opts.member, {
      id: (cmd?.id as string | undefined) ?? snowflake(),
      name: opts.name,
      type: 1,
      ...(inDm ? {} : { guild_id: this.guildOf(opts.channelId) }),
      options,
    });
  }

  autocomplete(opts: {
    name: string;
    channelId: string;
    member: FakeMember;
    subcommand?: string;
    options: Array<{ name: string; type: number; value: string; focused?: boolean }>;
  }): InteractionRecord {
    const options = opts.subcommand ? [{ type: 1, name: opts.subcommand, options: opts.options }] : opts.options;
    return this.newInteraction(4, opts.channelId, opts.member, {
      id: snowflake(),
      name: opts.name,
      type: 1,
      guild_id: this.guildOf(opts.channelId),
      options,
    });
  }

  clickButton(opts: {
    message: FakeMessage;
    customId: string;
    member: FakeMember;
    install?: 'user';
  }): InteractionRecord {
    return this.newInteraction(
      3,
      opts.message.channel_id,
      opts.member,
      { custom_id: opts.customId, component_type: 2 },
      opts.message,
      opts.install ?? (this.strangerGuilds.has(this.guildOf(opts.message.channel_id)) ? 'user' : undefined),
    );
  }

  /** Finds a button by label on a message and clicks it. */
  clickButtonLabelled(message: FakeMessage, label: string | RegExp, member: FakeMember): InteractionRecord {
    const button = this.buttons(message).find((b) =>
      typeof label === 'string' ? b.label === label : label.test(b.label ?? ''),
    );
    if (!button?.custom_id) throw new Error(`no button labelled ${String(label)} on message ${message.id}`);
    return this.clickButton({ message, customId: button.custom_id, member });
  }

  /** Every button of the message, in rows or (Components V2) anywhere in its layout. */
  buttons(message: FakeMessage): FakeComponent[] {
    const all = (cs: FakeComponent[]): FakeComponent[] =>
      cs.flatMap((c) => [c, ...all(c.components ?? []), ...(c.accessory ? all([c.accessory as FakeComponent]) : [])]);
    return all(message.components).filter((c) => c.type === 2);
  }

  /**
   * A user submits the modal the bot opened with `customId`, in its own shape (fake-discord-modals.ts):
   * `values` for text inputs (one left out keeps its pre-filled text), `channels` for channel
   * selects (the ids picked; left out or `[]`: none).
   */
  submitModal(opts: {
    customId: string;
    channelId: string;
    member: FakeMember;
    values: Record<string, string>;
    channels?: Record<string, string[]>;
    /** String selects: the values picked (left out: the options marked default). */
    selects?: Record<string, string[]>;
    /** Radio groups: the value picked. */
    radios?: Record<string, string>;
    /** File uploads: files made with addFile. */
    files?: Record<string, FakeAttachment[]>;
    message?: FakeMessage;
    /** As slashCommand's: the interaction comes through a user's own install. */
    install?: 'user';
  }): InteractionRecord {
    const modal = this.openedModal(opts.customId);
    if (!modal) throw new Error(`no modal ${opts.customId} was opened`);
    const files = opts.files
      ? Object.fromEntries(Object.entries(opts.files).map(([k, fs]) => [k, fs.map(({ data: _d, ...f }) => f)]))
      : undefined;
    const data = modalSubmitData(
      modal,
      { values: opts.values, channels: opts.channels ?? {}, selects: opts.selects, radios: opts.radios, files },
      {
        guildId: this.guildOf(opts.channelId),
        channel: (id) => this.channels.get(id),
        permissions: opts.member.permissions ?? '2248473465835073',
      },
    );
    const install = opts.install ?? (this.strangerGuilds.has(this.guildOf(opts.channelId)) ? 'user' : undefined);
    return this.newInteraction(5, opts.channelId, opts.member, data, opts.message, install);
  }

  /** The data of the latest modal the bot opened with this custom id. */
  private openedModal(customId: string): Json | undefined {
    const shown = [...this.interactions.values()].flatMap((r) =>
      r.callbacks.filter((c) => c.type === 9 && c.data?.custom_id === customId).map((c) => c.data!),
    );
    return shown[shown.length - 1];
  }

  /** The modal the bot opened in answer to an interaction, if any: its inputs, and its payload as sent. */
  modalOf(
    rec: InteractionRecord,
  ): { custom_id: string; title: string; inputs: ModalInput[]; payload: Json } | undefined {
    const cb = rec.callbacks.find((c) => c.type === 9);
    if (!cb?.data) return undefined;
    return {
      custom_id: String(cb.data.custom_id),
      title: String(cb.data.title),
      inputs: modalInputs(cb.data),
      payload: cb.data,
    };
  }

  /** The messages an interaction produced: its original response and follow-ups, in order. */
  responsesOf(rec: InteractionRecord): FakeMessage[] {
    return [...this.messages.values()]
      .filter((m) => m.interactionId === rec.id && !m.deleted)
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  // ---------------------------------------------------------------- REST

  private async readBody(
    req: IncomingMessage,
  ): Promise<{ json: Json | Json[] | undefined; files: FakeAttachment[]; multipart: boolean }> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const buf = Buffer.concat(chunks);
    if (buf.length === 0) return { json: undefined, files: [], multipart: false };
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      const parts = parseMultipart(buf, type);
      let json: Json | undefined;
      const files: FakeAttachment[] = [];
      for (const p of parts) {
        if (p.name === 'payload_json') json = JSON.parse(p.data.toString()) as Json;
        else if (p.filename !== undefined) {
          const att = this.addFile(p.filename, p.data, p.type ?? 'application/octet-stream');
          files.push({ ...att, data: p.data });
        }
      }
      return { json, files, multipart: true };
    }
    try {
      return { json: JSON.parse(buf.toString()) as Json, files: [], multipart: false };
    } catch {
      throw new HttpError(400, { code: 50109, message: 'The request body contains invalid JSON.' });
    }
  }

  private async handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/attachments/')) {
      const f = this.files.get(url.pathname.slice('/attachments/'.length));
      if (f) this.fileFetches += 1;
      res.statusCode = f ? 200 : 404;
      if (f) res.setHeader('content-type', f.type);
      res.end(f?.data);
      return;
    }
    const method = req.method ?? 'GET';
    const prefix = '/api/v10';
    const call: RecordedCall = {
      method,
      // discord.js writes `@original` as `%40original`, as Discord accepts.
      path: decodeURIComponent(url.pathname.slice(prefix.length)),
      query: url.search,
      body: undefined,
      status: 0,
      at: Date.now(),
      doneAt: 0,
      multipart: false,
      files: [],
    };
    let result: RouteResult;
    try {
      if (!url.pathname.startsWith(`${prefix}/`)) throw new HttpError(404, { code: 0, message: '404: Not Found' });
      const { json, files, multipart } = await this.readBody(req);
      call.body = json;
      call.multipart = multipart;
      call.files = files.map((f) => ({ name: f.filename, data: f.data ?? Buffer.alloc(0) }));
      const isInteractionRoute = /^\/(interactions|webhooks)\//.test(call.path);
      if (!isInteractionRoute && req.headers.authorization !== `Bot ${this.token}`) {
        throw new HttpError(401, { code: 0, message: '401: Unauthorized' });
      }
      this.forceRateLimit(method, call.path);
      if (!isInteractionRoute) this.spendGlobal();
      result = this.route(method, call.path, url.searchParams, json, files);
    } catch (err) {
      if (err instanceof HttpError) result = { status: err.status, body: err.body, headers: err.headers };
      else throw err;
    }
    call.status = result.status;
    if (result.status === 429) call.retryAfterMs = Number(result.headers?.['retry-after'] ?? 0) * 1000;
    call.doneAt = Date.now();
    this.calls.push(call);
    res.statusCode = result.status;
    for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
    if (result.body === undefined) res.end();
    else {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(result.body));
    }
    this.changed();
  }

  /** The forced storm (force429): channel message creates and edits only. */
  private forceRateLimit(method: string, path: string): void {
    const f = this.forced;
    const m = /^\/channels\/(\d+)\/messages(?:\/\d+)?$/.exec(path);
    if (!f || f.count <= 0 || !m || (method !== 'POST' && method !== 'PATCH') || !f.match(method, path)) return;
    f.count -= 1;
    this.rateLimitHits += 1;
    const now = Date.now();
    throw new HttpError(
      429,
      { message: 'You are being rate limited.', retry_after: f.retryAfterSec, global: false },
      {
        'retry-after': String(f.retryAfterSec),
        'x-ratelimit-limit': String(this.channelLimit.limit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String((now + f.retryAfterSec * 1000) / 1000),
        'x-ratelimit-reset-after': f.retryAfterSec.toFixed(3),
        'x-ratelimit-bucket': `fakebucket-${m[1]}`,
        'x-ratelimit-scope': 'user',
      },
    );
  }

  /** The bot's global limit (globalLimit), sliding: a call beyond it is refused like Discord's. */
  private spendGlobal(): void {
    if (!this.globalLimit) return;
    const { limit, windowMs } = this.globalLimit;
    const now = Date.now();
    this.globalLog = this.globalLog.filter((t) => t > now - windowMs);
    if (this.globalLog.length >= limit) {
      const retryAfter = (this.globalLog[0]! + windowMs - now) / 1000;
      this.rateLimitHits += 1;
      throw new HttpError(
        429,
        { message: 'You are being rate limited.', retry_after: retryAfter, global: true },
        { 'retry-after': String(Math.ceil(retryAfter)), 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' },
      );
    }
    this.globalLog.push(now);
  }

  /** Sliding-window budget per channel for message create/edit; answers headers like Discord's. */
  private spend(channelId: string): Record<string, string> {
    const { limit, windowMs } = this.channelLimit;
    const now = Date.now();
    const log = (this.rateLog.get(channelId) ?? []).filter((t) => t > now - windowMs);
    this.rateLog.set(channelId, log);
    const bucket = `fakebucket-${channelId}`;
    if (log.length >= limit) {
      const retryAfter = (log[0]! + windowMs - now) / 1000;
      this.rateLimitHits += 1;
      throw new HttpError(
        429,
        { message: 'You are being rate limited.', retry_after: retryAfter, global: false },
        {
          'retry-after': String(Math.ceil(retryAfter)),
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String((now + retryAfter * 1000) / 1000),
          'x-ratelimit-reset-after': retryAfter.toFixed(3),
          'x-ratelimit-bucket': bucket,
          'x-ratelimit-scope': 'user',
        },
      );
    }
    log.push(now);
    const resetAfter = (log[0]! + windowMs - now) / 1000;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(limit - log.length),
      'x-ratelimit-reset': String((now + resetAfter * 1000) / 1000),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-bucket': bucket,
    };
  }

  private validateMessage(body: Json, partial: boolean, flags = Number(body.flags ?? 0)): void {
    const v2 = componentsV2Problem(body, flags);
    if (v2) throw invalidForm(v2[0], v2[1], 'COMPONENT_LAYOUT_INVALID');
    if ((flags & IS_COMPONENTS_V2) !== 0) return;
    const content = body.content;
    if (content !== undefined && content !== null && typeof content !== 'string')
      throw invalidForm('content', 'Must be a string.', 'STRING_TYPE_CONVERT');
    if (typeof content === 'string' && [...content].length > 2000)
      throw invalidForm('content', 'Must be 2000 or fewer in length.');
    const embeds = (body.embeds as FakeEmbed[] | undefined) ?? [];
    if (embeds.length > 10) throw invalidForm('embeds', 'Must be 10 or fewer in length.');
    let total = 0;
    embeds.forEach((e, i) => {
      const check = (path: string, v: string | undefined, max: number): void => {
        if (v === undefined) return;
        total += v.length;
        if (v.length > max) throw invalidForm(`embeds.${i}.${path}`, `Must be ${max} or fewer in length.`);
      };
      check('title', e.title, 256);
      check('description', e.description, 4096);
      check('footer.text', e.footer?.text, 2048);
      check('author.name', e.author?.name, 256);
      const fields = e.fields ?? [];
      if (fields.length > 25) throw invalidForm(`embeds.${i}.fields`, 'Must be 25 or fewer in length.');
      fields.forEach((f, j) => {
        check(`fields.${j}.name`, f.name, 256);
        check(`fields.${j}.value`, f.value, 1024);
        if (!f.name || !f.value)
          throw invalidForm(`embeds.${i}.fields.${j}.value`, 'This field is required', 'BASE_TYPE_REQUIRED');
      });
    });
    if (total > 6000) throw invalidForm('embeds', 'Embed size exceeds maximum size of 6000', 'MAX_EMBED_SIZE_EXCEEDED');
    const rows = (body.components as FakeComponent[] | undefined) ?? [];
    if (rows.length > 5) throw invalidForm('components', 'Must be 5 or fewer in length.');
    rows.forEach((row, i) => {
      const cs = row.components ?? [];
      if (cs.length > 5) throw invalidForm(`components.${i}.components`, 'Must be 5 or fewer in length.');
      cs.forEach((c, j) => {
        if (c.custom_id !== undefined && c.custom_id.length > 100)
          throw invalidForm(`components.${i}.components.${j}.custom_id`, 'Must be 100 or fewer in length.');
        if (c.label !== undefined && c.label.length > 80)
          throw invalidForm(`components.${i}.components.${j}.label`, 'Must be 80 or fewer in length.');
      });
    });
    if (
      !partial &&
      (content === undefined || content === '') &&
      embeds.length === 0 &&
      rows.length === 0 &&
      !body.__files
    ) {
      throw new HttpError(400, { code: 50006, message: 'Cannot send an empty message' });
    }
  }

  private storeMessage(p: {
    channel_id: string;
    author: FakeUser;
    content: string;
    embeds?: FakeEmbed[];
    components?: FakeComponent[];
    attachments?: FakeAttachment[];
    flags?: number;
    mentions?: FakeUser[];
    webhook_id?: string;
    interactionId?: string;
  }): FakeMessage {
    const flags = p.flags ?? 0;
    const msg: FakeMessage = {
      id: snowflake(),
      channel_id: p.channel_id,
      guild_id: this.isDm(p.channel_id) ? undefined : this.guildOf(p.channel_id),
      author: p.author,
      content: p.content,
      embeds: p.embeds ?? [],
      components: p.components ?? [],
      attachments: p.attachments ?? [],
      flags,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      mentions: p.mentions ?? [],
      webhook_id: p.webhook_id,
      history: [p.content],
      historyAt: [Date.now()],
      deleted: false,
      interactionId: p.interactionId,
      ephemeral: (flags & 64) !== 0,
    };
    this.messages.set(msg.id, msg);
    return msg;
  }

  private botMessage(
    channelId: string,
    body: Json,
    files: FakeAttachment[],
    extra: { interactionId?: string; flags?: number } = {},
  ): FakeMessage {
    this.validateMessage({ ...body, __files: files.length > 0 }, false);
    const msg = this.storeMessage({
      channel_id: channelId,
      author: this.botUser,
      content: typeof body.content === 'string' ? body.content : '',
      embeds: (body.embeds as FakeEmbed[] | undefined) ?? [],
      components: (body.components as FakeComponent[] | undefined) ?? [],
      attachments: files,
      flags: extra.flags ?? (typeof body.flags === 'number' ? body.flags : 0),
      webhook_id: extra.interactionId ? this.applicationId : undefined,
      interactionId: extra.interactionId,
    });
    const reference = this.replyReference(channelId, body.message_reference);
    if (reference) msg.message_reference = reference;
    if (!msg.ephemeral) this.dispatchMessageEvent('MESSAGE_CREATE', channelId, this.messagePayload(msg));
    return msg;
  }

  /**
   * A reply's `message_reference`, as Discord checks it: the message must exist in the channel
   * (else 400 Invalid Form Body, unless `fail_if_not_exists` is false: then it is sent as no reply).
   */
  private replyReference(channelId: string, ref: unknown): FakeMessage['message_reference'] {
    if (!ref || typeof ref !== 'object') return undefined;
    const r = ref as Json;
    const target = typeof r.message_id === 'string' ? this.messages.get(r.message_id) : undefined;
    if (!target || target.deleted || target.channel_id !== channelId) {
      if (r.fail_if_not_exists === false) return undefined;
      throw invalidForm('message_reference', 'Unknown message', 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE');
    }
    return { message_id: target.id, channel_id: channelId, ...(target.guild_id ? { guild_id: target.guild_id } : {}) };
  }

  /** Discord refuses a thread where the bot lacks Create Public Threads (403 Missing Permissions). */
  private mayCreateThread(channelId: string): void {
    const ch = this.channels.get(channelId);
    if (!ch) return;
    if (!botHas(this.guildOf(channelId), this.botUser.id, ch.permission_overwrites ?? [], CREATE_PUBLIC_THREADS))
      throw new HttpError(403, { ...MISSING_PERMISSIONS });
  }

  private editMessage(msg: FakeMessage, body: Json, files: FakeAttachment[]): FakeMessage {
    if (msg.deleted) throw new HttpError(404, { code: 10008, message: 'Unknown Message' });
    this.validateMessage(body, true, Number(body.flags ?? msg.flags));
    if (typeof body.content === 'string') msg.content = body.content;
    if (body.content === null) msg.content = '';
    if (Array.isArray(body.embeds)) msg.embeds = body.embeds as FakeEmbed[];
    if (Array.isArray(body.components)) msg.components = body.components as FakeComponent[];
    if (files.length > 0) msg.attachments = files;
    else if (Array.isArray(body.attachments) && body.attachments.length === 0) msg.attachments = [];
    if (typeof body.flags === 'number') msg.flags = (msg.flags & 64) | (body.flags & ~64 & ~128);
    msg.flags &= ~128;
    msg.edited_timestamp = new Date().toISOString();
    msg.history.push(msg.content);
    msg.historyAt.push(Date.now());
    if (!msg.ephemeral) this.dispatchMessageEvent('MESSAGE_UPDATE', msg.channel_id, this.messagePayload(msg));
    return msg;
  }

  private findMessage(channelId: string, id: string): FakeMessage {
    const msg = this.messages.get(id);
    if (!msg || msg.channel_id !== channelId || msg.deleted)
      throw new HttpError(404, { code: 10008, message: 'Unknown Message' });
    return msg;
  }

  private interactionByToken(appId: string, token: string): InteractionRecord {
    if (appId !== this.applicationId) throw new HttpError(404, { code: 10015, message: 'Unknown Webhook' });
    const rec = [...this.interactions.values()].find((i) => i.token === token);
    if (!rec) throw new HttpError(404, { code: 10015, message: 'Unknown Webhook' });
    if (this.revokedTokens.has(token)) throw new HttpError(401, { code: 50027, message: 'Invalid Webhook Token' });
    if (Date.now() - rec.createdAt > 15 * 60 * 1000)
      throw new HttpError(401, { code: 50027, message: 'Invalid Webhook Token' });
    return rec;
  }

  private route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: Json | Json[] | undefined,
    files: FakeAttachment[],
  ): RouteResult {
    const obj = (body && !Array.isArray(body) ? body : {}) as Json;
    let m: RegExpExecArray | null;
    const ok = (b?: unknown, headers?: Record<string, string>): RouteResult => ({
      status: b === undefined ? 204 : 200,
      body: b,
      headers,
    });

    if (method === 'GET' && path === '/gateway/bot') {
      return ok({
        url: this.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14400000, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/gateway') return ok({ url: this.gatewayUrl });
    if (method === 'GET' && path === '/users/@me') return ok(this.userPayload(this.botUser));
    if (method === 'GET' && path === '/applications/@me')
      return ok({ id: this.applicationId, name: 'bridge', flags: 0, bot: this.userPayload(this.botUser) });

    if ((m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path))) {
      if (m[1] !== this.applicationId) throw new HttpError(403, { code: 50001, message: 'Missing Access' });
      const scope = m[2] ?? 'global';
      if (m[2] && !this.knowsGuild(m[2])) throw new HttpError(403, { code: 50001, message: 'Missing Access' });
      if (method === 'GET') return ok(this.commands.get(scope) ?? []);
      if (method === 'PUT') {
        if (!Array.isArray(body)) throw invalidForm('_', 'Must be an array', 'ARRAY_TYPE_CONVERT');
        const prev = this.commands.get(scope) ?? [];
        const stored = (body as Json[]).map((c) => ({
          ...c,
          id: (prev.find((p) => p.name === c.name)?.id as string | undefined) ?? snowflake(),
          application_id: this.applicationId,
          ...(m![2] ? { guild_id: m![2] } : {}),
          version: snowflake(),
          type: c.type ?? 1,
        }));
        this.validateCommands(stored);
        this.commands.set(scope, stored);
        return ok(stored);
      }
    }

    if ((m = /^\/guilds\/(\d+)\/roles$/.exec(path)) && method === 'GET') {
      if (!this.knowsGuild(m[1])) throw new HttpError(403, { code: 50001, message: 'Missing Access' });
      return ok(this.guildPayload({ allRoles: true, guildId: m[1] }).roles);
    }
    if ((m = /^\/guilds\/(\d+)\/members$/.exec(path)) && method === 'GET') {
      // List Guild Members: by user id, after `after`, at most `limit` (1-1000, default 1).
      this.memberListCalls++;
      if (m[1] !== this.guildId || !this.membersIntent)
        throw new HttpError(403, { code: 50001, message: 'Missing Access' });
      const limit = Number(query.get('limit') ?? '1');
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw invalidForm('limit', 'Must be between 1 and 1000');
      const after = BigInt(query.get('after') ?? '0');
      const all = [{ user: this.botUser, roles: [] as string[] }, ...this.members.values()];
      const page = all
        .filter((mem) => BigInt(mem.user.id) > after)
        .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1))
        .slice(0, limit);
      return ok(page.map((mem) => this.memberPayload(mem)));
    }
    if ((m = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(path)) && method === 'GET') {
      if (m[1] !== this.guildId) throw new HttpError(403, { code: 50001, message: 'Missing Access' });
      const member = m[2] === this.botUser.id ? { user: this.botUser, roles: [] } : this.members.get(m[2]!);
      if (!member) throw new HttpError(404, { code: 10007, message: 'Unknown Member' });
      return ok(this.memberPayload(member));
    }
    if (method === 'POST' && path === '/users/@me/channels') {
      const member = this.members.get(String(obj.recipient_id ?? ''));
      if (!member) throw invalidForm('recipient_id', 'Unknown User', 'BASE_TYPE_REQUIRED');
      return ok(this.channelPayload(this.openDm(member)));
    }
    if ((m = /^\/channels\/(\d+)/.exec(path)) && this.strangerGuilds.has(this.channels.get(m[1]!)?.guild_id ?? ''))
      throw new HttpError(403, { code: 50001, message: 'Missing Access' });
    if ((m = /^\/channels\/(\d+)$/.exec(path)) && method === 'GET') {
      const ch = this.channels.get(m[1]!);
      if (!ch) throw new HttpError(404, { code: 10003, message: 'Unknown Channel' });
      return ok(this.channelPayload(ch));
    }
    if ((m = /^\/channels\/(\d+)\/typing$/.exec(path)) && method === 'POST') return ok();

    if ((m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
      const channelId = m[1]!;
      if (!this.channels.has(channelId)) throw new HttpError(404, { code: 10003, message: 'Unknown Channel' });
      if (method === 'GET')
        return ok(
          this.channelMessages(channelId)
            .reverse()
            .map((x) => this.messagePayload(x)),
        );
      if (method === 'POST') {
        const headers = this.spend(channelId);
        const msg = this.botMessage(channelId, obj, files, { flags: Number(obj.flags ?? 0) & (4 | IS_COMPONENTS_V2) });
        return ok(this.messagePayload(msg), headers);
      }
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path))) {
      const msg = this.findMessage(m[1]!, m[2]!);
      if (method === 'GET') return ok(this.messagePayload(msg));
      if (method === 'PATCH') {
        if (msg.author.id !== this.botUser.id)
          throw new HttpError(403, { code: 50005, message: 'Cannot edit a message authored by another user' });
        const headers = this.spend(m[1]!);
        return ok(this.messagePayload(this.editMessage(msg, obj, files)), headers);
      }
      if (method === 'DELETE') {
        msg.deleted = true;
        this.dispatchMessageEvent('MESSAGE_DELETE', msg.channel_id, {
          id: msg.id,
          channel_id: msg.channel_id,
          guild_id: msg.guild_id,
        });
        return ok();
      }
    }
    if ((m = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path)) && method === 'POST') {
      const msg = this.findMessage(m[1]!, m[2]!);
      this.mayCreateThread(m[1]!);
      const onMessage = this.quirks.threadOnMessage ?? 'all';
      if (onMessage === 'none' || (onMessage === 'not-interaction-replies' && msg.interactionId)) {
        throw new HttpError(404, { code: 10008, message: 'Unknown Message' });
      }
      if ([...this.channels.values()].some((c) => c.id === msg.id))
        throw new HttpError(400, { code: 160004, message: 'A thread has already been created for this message' });
      const name = String(obj.name ?? '');
      if (name.length < 1 || name.length > 100) throw invalidForm('name', 'Must be between 1 and 100 in length.');
      return ok(this.createThread(m[1]!, name, msg.id));
    }
    if ((m = /^\/channels\/(\d+)\/threads$/.exec(path)) && method === 'POST') {
      if (!this.channels.has(m[1]!)) throw new HttpError(404, { code: 10003, message: 'Unknown Channel' });
      this.mayCreateThread(m[1]!);
      const name = String(obj.name ?? '');
      if (name.length < 1 || name.length > 100) throw invalidForm('name', 'Must be between 1 and 100 in length.');
      return ok(this.createThread(m[1]!, name, snowflake()));
    }

    if ((m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(path)) && method === 'POST') {
      const rec = this.interactions.get(m[1]!);
      if (!rec || rec.token !== m[2]) throw new HttpError(404, { code: 10062, message: 'Unknown interaction' });
      if (rec.callbacks.length > 0)
        throw new HttpError(400, { code: 40060, message: 'Interaction has already been acknowledged.' });
      const afterMs = Date.now() - rec.createdAt;
      if (afterMs > INTERACTION_ACK_WINDOW_MS) {
        this.lateCallbacks.push({ interactionId: rec.id, afterMs });
        throw new HttpError(404, { code: 10062, message: 'Unknown interaction' });
      }
      const type = Number(obj.type);
      const data = obj.data as Json | undefined;
      const modalRefused = type === 9 ? modalProblem(data) : undefined;
      if (modalRefused) throw invalidForm(modalRefused[0], modalRefused[1]);
      rec.callbacks.push({ type, data, at: Date.now() });
      let message: FakeMessage | undefined;
      if (type === 4 || type === 5) {
        const flags = Number(data?.flags ?? 0) & (64 | IS_COMPONENTS_V2);
        if (type === 4) message = this.botMessage(rec.channelId, data ?? {}, files, { interactionId: rec.id, flags });
        else {
          message = this.storeMessage({
            channel_id: rec.channelId,
            author: this.botUser,
            content: '',
            flags: flags | 128,
            webhook_id: this.applicationId,
            interactionId: rec.id,
          });
        }
        rec.originalMessageId = message.id;
      } else if (type === 6 || type === 7) {
        if (!rec.sourceMessageId)
          throw new HttpError(400, { code: 50035, message: 'Invalid interaction response type for this interaction' });
        rec.originalMessageId = rec.sourceMessageId;
        if (type === 7) message = this.editMessage(this.messages.get(rec.sourceMessageId)!, data ?? {}, files);
      } else if (type !== 8 && type !== 9) {
        throw invalidForm('type', 'Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.', 'BASE_TYPE_CHOICES');
      }
      this.changed();
      if (query.get('with_response') === 'true') {
        return ok({
          interaction: {
            id: rec.id,
            type: rec.type,
            activity_instance_id: null,
            response_message_id: message?.id ?? null,
            response_message_loading: type === 5,
            response_message_ephemeral: message?.ephemeral ?? false,
          },
          resource: { type, ...(message ? { message: this.messagePayload(message) } : {}) },
        });
      }
      return ok();
    }

    if ((m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(path)) && method === 'POST') {
      const rec = this.interactionByToken(m[1]!, m[2]!);
      if (rec.callbacks.length === 0) throw new HttpError(404, { code: 10015, message: 'Unknown Webhook' });
      const flags = Number(obj.flags ?? 0) & (64 | IS_COMPONENTS_V2);
      return ok(this.messagePayload(this.botMessage(rec.channelId, obj, files, { interactionId: rec.id, flags })));
    }
    // discord.js sends @original URL-encoded (%40original), as Discord accepts it.
    if ((m = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|%40original|\d+)$/.exec(path))) {
      const rec = this.interactionByToken(m[1]!, m[2]!);
      const id = m[3] === '@original' || m[3] === '%40original' ? rec.originalMessageId : m[3];
      const msg = id ? this.messages.get(id) : undefined;
      if (!msg || msg.deleted) throw new HttpError(404, { code: 10008, message: 'Unknown Message' });
      if (method === 'GET') return ok(this.messagePayload(msg));
      if (method === 'PATCH') return ok(this.messagePayload(this.editMessage(msg, obj, files)));
      if (method === 'DELETE') {
        msg.deleted = true;
        return ok();
      }
    }
    throw new HttpError(404, { code: 0, message: `404: Not Found (${method} ${path})` });
  }

  private createThread(parentId: string, name: string, id: string): Json {
    const ch: FakeChannel = {
      id,
      type: 11,
      name,
      guild_id: this.guildOf(parentId),
      parent_id: parentId,
      owner_id: this.botUser.id,
    };
    this.channels.set(id, ch);
    const payload = this.channelPayload(ch);
    this.dispatch('THREAD_CREATE', { ...payload, newly_created: true });
    return payload;
  }

  private validateCommands(cmds: Json[]): void {
    const names = new Set<string>();
    cmds.forEach((c, i) => {
      const name = String(c.name ?? '');
      if (!/^[-_\p{L}\p{N}]{1,32}$/u.test(name) || name !== name.toLowerCase())
        throw invalidForm(`${i}.name`, 'Command name is invalid', 'APPLICATION_COMMAND_INVALID_NAME');
      if (names.has(name))
        throw invalidForm(
          `${i}.name`,
          'Application command names must be unique',
          'APPLICATION_COMMANDS_DUPLICATE_NAME',
        );
      names.add(name);
      const desc = String(c.description ?? '');
      if (desc.length < 1 || desc.length > 100)
        throw invalidForm(`${i}.description`, 'Must be between 1 and 100 in length.');
      const walk = (opts: Json[] | undefined, path: string): void => {
        if (!opts) return;
        if (opts.length > 25) throw invalidForm(`${path}.options`, 'Must be 25 or fewer in length.');
        opts.forEach((o, j) => {
          const choices = o.choices as Json[] | undefined;
          if (choices && choices.length > 25)
            throw invalidForm(`${path}.options.${j}.choices`, 'Must be 25 or fewer in length.');
          if (choices && o.autocomplete)
            throw invalidForm(
              `${path}.options.${j}.autocomplete`,
              'Autocomplete cannot be set with choices',
              'AUTOCOMPLETE_CHOICES',
            );
          walk(o.options as Json[] | undefined, `${path}.options.${j}`);
        });
      };
      walk(c.options as Json[] | undefined, String(i));
    });
  }
}
