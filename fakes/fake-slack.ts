/**
 * A fake Slack Web API on 127.0.0.1 for end-to-end tests: records every call, answers like Slack,
 * keeps the messages so chat.update / streaming change what a channel shows, and enforces Slack's
 * documented limits and tier budgets.
 *
 * Enforced (each refusal recorded; 429s counted in `rateLimited`):
 * - message text <= 40,000 characters (`msg_too_long`); <= 50 blocks, section text <= 3,000,
 *   button text <= 75, action_id unique per message (`invalid_blocks`); text or blocks required
 *   (`no_text`).
 * - chat.postMessage: 1 per second per channel sustained, bursts of up to `postBurst` (default 3;
 *   Slack documents "short bursts") -> HTTP 429 with Retry-After.
 * - chat.update: Tier 3, 50 per minute per workspace (token bucket of 50 refilled 50/min) -> 429.
 * - chat.startStream and chat.stopStream: Tier 2, 20 per minute per workspace each; chat.appendStream:
 *   Tier 4, 100 per minute per workspace (token buckets like chat.update) -> 429.
 * - native streaming: on, or refused with `unknown_method` / `feature_not_enabled` (setStreaming).
 * - assistant.threads.setStatus: about 60 per minute per DM (channel); setSuggestedPrompts and
 *   setTitle: Tier 3, 50 per minute per workspace -> 429. Their arguments are checked like Slack's
 *   (`invalid_arguments`); the workspace may lack them (`assistant` option: unknown_method,
 *   not_allowed_token_type, missing_scope). What each thread shows is kept (`assistantThreads`).
 * - data_table and data_visualization blocks checked as Slack's reference says (fake-slack-tables.ts,
 *   fake-slack-charts.ts); `newBlocks: 'refuse'` answers invalid_blocks to them, as a workspace that
 *   does not know them (naming the chart's block, as Slack names a block it cannot take).
 * - context_actions blocks: 1 to 5 elements, feedback_buttons with positive and negative buttons
 *   (plain_text text <= 75, value <= 2,000), action ids unique in the message (`invalid_blocks`).
 * - images from `unfetchableImageHosts`: in an image block (or a context image) the message is refused,
 *   `invalid_blocks` / "downloading image failed [json-pointer:/blocks/N/image_url]"; in a section's
 *   accessory it is accepted and shows as a broken icon (recorded in `brokenImagesShown`).
 * - conversations.history / .replies: with `historyLimits: 'distributed'`, once a minute per workspace
 *   for both together (429 `ratelimited`), 15 messages at most (`historyRefused` counts the 429s).
 * Any method may also be forced to answer 429 a number of times (`force429`).
 * The method is the last path segment, so any SLACK_API_URL prefix works (`/api/chat.update`).
 */
import { cardProblem, carouselProblem } from './fake-slack-cards';
import { FakeSlackWorkspaces } from './fake-slack-oauth';
import { entityProblems, unfurlMetadataProblems } from './fake-slack-work-objects';
import { dataTableProblem } from './fake-slack-tables';
import { dataVisualizationProblem, MAX_CHARTS_PER_MESSAGE } from './fake-slack-charts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';

export type Args = Record<string, unknown>;

export interface SlackCall {
  method: string;
  /** The workspace whose token made the call (absent when the token was refused). */
  team?: string;
  args: Args;
  at: number;
  status: number;
  response: Args;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks: unknown[];
  user: string;
  bot_id?: string;
  /** Every text the message showed, in order (post, each update/append). */
  history: string[];
  streaming?: boolean;
  files?: Array<{ id: string; name: string }>;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  text: string;
  blocks: unknown[];
  thread_ts?: string;
}

export interface FakeSlackOptions {
  team?: string;
  botUserId?: string;
  botId?: string;
  botToken?: string;
  postBurst?: number;
  /** The clock the rate buckets refill by (default Date.now); a fixed one makes a burst's 429s exact. */
  now?: () => number;
  /** 'on' or the error chat.startStream answers. */
  streaming?: 'on' | 'unknown_method' | 'feature_not_enabled';
  users?: Record<string, string>;
  /**
   * Variations a different (still faithful) Web API could show: methods it does not implement at
   * all (HTTP 404, as a proxy or partial implementation answers, instead of Slack's 200
   * `unknown_method`); serving only under a path prefix such as `/api/` (anything else is 404); an
   * auth.test answer of its own.
   */
  missingMethods?: string[];
  servePrefix?: string;
  authTest?: Args;
  /**
   * Hosts whose images Slack cannot download. As Slack does: a message naming one in an `image`
   * block (or a context block's image element) is refused, `invalid_blocks` with "downloading image
   * failed [json-pointer:/blocks/N/image_url]"; one in a section's image accessory is accepted and
   * shown as a broken icon, which the fake records in `brokenImagesShown`.
   */
  unfetchableImageHosts?: string[];
  /**
   * Which failing images a refusal names: all of them (default), or only the first, as a Slack that
   * stops at the first image it cannot download would.
   */
  imageRefusalNames?: 'all' | 'first';
  /**
   * Channels the bot is not in (a private channel, a DM between people): chat.postMessage and
   * chat.postEphemeral there answer `channel_not_found`, as Slack does; a command's response_url
   * still reaches the user.
   */
  notInChannels?: string[];
  /** assistant.threads.*: on (default), or the error this workspace answers for each of them. */
  assistant?: 'on' | 'unknown_method' | 'not_allowed_token_type' | 'missing_scope';
  /**
   * The app declares agent_view: setSuggestedPrompts with a thread_ts fails silently (ok, nothing
   * shown), as Slack's reference says; without one the prompts go on the DM (`dmPrompts`).
   */
  agentView?: boolean;
  /** `refuse`: an older workspace, which answers invalid_blocks to card and carousel blocks. */
  cards?: 'on' | 'refuse';
  /**
   * `distributed`: Slack's limits for a commercially distributed app outside the Marketplace:
   * conversations.history and conversations.replies together once a minute per workspace (HTTP 429,
   * `ratelimited`), 15 messages at most per call (a larger `limit` is cut to 15).
   */
  historyLimits?: 'tier3' | 'distributed';
  /** `refuse`: a workspace that does not know Slack's newer blocks (data_table, chart): invalid_blocks. */
  newBlocks?: 'on' | 'refuse';
  /** `off`: a workspace without Work Objects (chat.unfurl with metadata answers feature_not_enabled). */
  workObjects?: 'on' | 'off';
}

/** A chat.unfurl the fake took: where, and the Work Objects (`metadata`) or classic unfurls it carried. */
export interface FakeUnfurl {
  channel?: string;
  ts?: string;
  unfurl_id?: string;
  metadata?: Record<string, unknown>;
  unfurls?: Record<string, unknown>;
}

/** What an assistant thread shows in the fake: every status set (in order), the prompts, the title. */
export interface FakeAssistantThread {
  channel: string;
  thread_ts: string;
  statuses: Array<{ status: string; loading_messages?: string[]; at: number; seq: number }>;
  prompts?: Array<{ title: string; message: string }>;
  promptsTitle?: string;
  title?: string;
}

interface Bucket {
  tokens: number;
  at: number;
}

const LIMITS = { text: 40_000, blocks: 50, sectionText: 3_000, buttonText: 75 };
/**
 * The text a stream call adds: `markdown_text`, or the `markdown_text` chunks of `chunks` (the form
 * @slack/web-api's chatStream sends).
 */
function streamText(a: Args): string {
  if (typeof a.markdown_text === 'string') return a.markdown_text;
  if (!Array.isArray(a.chunks)) return '';
  return (a.chunks as Array<Record<string, unknown>>)
    .filter((c) => c?.type === 'markdown_text' && typeof c.text === 'string')
    .map((c) => String(c.text))
    .join('');
}

/**
 * chat.postMessage and chat.update take `markdown_text` in place of `text` and `blocks` (Slack renders
 * it); the fake keeps it as the message's text.
 */
function withMarkdownText(method: string, a: Args): Args {
  if (method !== 'chat.postMessage' && method !== 'chat.update') return a;
  if (typeof a.markdown_text !== 'string' || a.text !== undefined || a.blocks !== undefined) return a;
  return { ...a, text: a.markdown_text };
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Per-workspace tier budgets: calls per minute (a token bucket of that size refilled over a minute). */
export const TIER_BUDGETS: Record<string, number> = {
  'chat.update': 50,
  'chat.startStream': 20,
  'chat.appendStream': 100,
  'chat.stopStream': 20,
  'assistant.threads.setSuggestedPrompts': 50,
  'assistant.threads.setTitle': 50,
  'chat.unfurl': 50,
};
/** The history methods Slack limits for distributed apps. */
const HISTORY_METHODS = ['conversations.history', 'conversations.replies'];
/** At most this many messages per history read under the distributed limits. */
export const DISTRIBUTED_HISTORY_MAX = 15;

/** assistant.threads.setStatus: about one a second per DM (a bucket of 60 a minute per channel). */
export const STATUS_PER_MINUTE = 60;

export class FakeSlack {
  readonly team: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly botToken: string;
  readonly calls: SlackCall[] = [];
  readonly messages: FakeMessage[] = [];
  readonly ephemerals: FakeEphemeral[] = [];
  /**
   * Photos a person saw as a broken icon: an unfetchable image in a section's accessory, which Slack
   * accepts without fetching and the client then cannot show (`ts` is the ephemeral's message_ts).
   */
  readonly brokenImagesShown: Array<{ channel: string; ts: string; url: string }> = [];
  readonly views: Args[] = [];
  readonly uploads = new Map<string, { name: string; data: Buffer; channel?: string; thread_ts?: string }>();
  readonly files = new Map<string, { name: string; mime: string; data: Buffer }>();
  readonly assistantThreads = new Map<string, FakeAssistantThread>();
  /** Suggested prompts set on a DM without a thread (the agent experience), per channel, in order. */
  readonly dmPrompts = new Map<string, Array<Array<{ title: string; message: string }>>>();
  rateLimited = 0;
  /** chat.unfurl calls taken, in order; the Work Object problems found (Slack's `invalid_metadata_format`). */
  readonly unfurls: FakeUnfurl[] = [];
  readonly workObjectProblems: string[] = [];
  /** entity.presentDetails calls taken (the flexpane), in order. */
  readonly presentedDetails: Array<{ trigger_id: string; metadata?: Record<string, unknown>; error?: unknown }> = [];
  /** History reads refused under the distributed limits (`historyLimits`). */
  historyRefused = 0;
  /** "Add to Slack": other workspaces, their tokens and channels (fake-slack-oauth.ts). */
  readonly workspaces = new FakeSlackWorkspaces();
  /** The workspace of the call being answered (set from its token). */
  private callTeam: string | undefined;
  /** App Home views published (views.publish), in order. */
  readonly homeViews: Array<{ user: string; view: Args }> = [];
  /** conversations.info names and conversations.members lists, per channel id. */
  readonly channelNames: Record<string, string> = {};
  readonly channelMembers: Record<string, string[]> = {};
  /** Users that users.info says are bots (besides the bridge itself). */
  readonly bots = new Set<string>();
  /** Users that users.info says are workspace admins (`is_admin`) and owners (`is_owner`). */
  readonly workspaceAdmins = new Set<string>();
  readonly workspaceOwners = new Set<string>();
  /** Users that users.info says are admins (`is_org_admin`) and owners (`is_org_owner`) of the Grid org. */
  readonly orgAdmins = new Set<string>();
  readonly orgOwners = new Set<string>();
  private streaming: 'on' | 'unknown_method' | 'feature_not_enabled';
  private readonly postBurst: number;
  private readonly users: Record<string, string>;
  private readonly opts: FakeSlackOptions;
  private readonly buckets = new Map<string, Bucket>();
  private readonly forced = new Map<string, { count: number; retryAfterSec: number }>();
  private readonly holds = new Map<string, { arrived: number; released: Promise<void> }>();
  private server: Server | undefined;
  private handling = 0;
  private seq = 0;
  private lastSec = 0;
  url = '';

  constructor(opts: FakeSlackOptions = {}) {
    this.team = opts.team ?? 'T0FAKE';
    this.botUserId = opts.botUserId ?? 'UBOT';
    this.botId = opts.botId ?? 'BBOT';
    this.botToken = opts.botToken ?? 'xoxb-fake-token';
    this.postBurst = opts.postBurst ?? 3;
    this.streaming = opts.streaming ?? 'on';
    this.users = opts.users ?? {};
    this.opts = opts;
  }

  /** Base URL to put in SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handling++;
      res.once('close', () => this.handling--);
      void this.handle(req, res).catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'fatal_error', detail: String(err) }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Requests received and not yet answered (a frozen client's last calls are applied once this is 0). */
  get busy(): number {
    return this.handling;
  }

  setStreaming(mode: 'on' | 'unknown_method' | 'feature_not_enabled'): void {
    this.streaming = mode;
  }

  /** The next `count` calls of `method` answer 429 with Retry-After `retryAfterSec`. */
  force429(method: string, count: number, retryAfterSec = 1): void {
    this.forced.set(method, { count, retryAfterSec });
  }

  /**
   * Calls of `method` are held unanswered until `release` (a slow Slack): `arrived` counts the calls
   * that came meanwhile, so a test sees how many went out at once.
   */
  hold(method: string): { arrived: () => number; release: () => void } {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const h = { arrived: 0, released };
    this.holds.set(method, h);
    return {
      arrived: () => h.arrived,
      release: () => {
        this.holds.delete(method);
        release();
      },
    };
  }

  setUser(id: string, name: string): void {
    this.users[id] = name;
  }

  /** A file a user "shared": its url_private needs the bot token, like Slack's. */
  addFile(
    name: string,
    mime: string,
    data: Buffer,
  ): { id: string; name: string; mimetype: string; size: number; url_private: string; url_private_download: string } {
    const id = `F${String(++this.seq).padStart(8, '0')}`;
    this.files.set(id, { name, mime, data });
    const url = `${this.url}/files-pri/${id}/${encodeURIComponent(name)}`;
    return { id, name, mimetype: mime, size: data.length, url_private: url, url_private_download: `${url}?download=1` };
  }

  /** An assistant thread's recorded status, prompts and title. */
  assistantThread(channel: string, threadTs: string): FakeAssistantThread | undefined {
    return this.assistantThreads.get(`${channel}:${threadTs}`);
  }

  /** Position of a call in `calls` (orders a status before the answer's first message). */
  callIndex(pred: (c: SlackCall) => boolean): number {
    return this.calls.findIndex(pred);
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  message(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /** Top-level messages of a channel (no thread replies). */
  channelMessages(channel: string): FakeMessage[] {
    return this.messages.filter((m) => m.channel === channel && (!m.thread_ts || m.thread_ts === m.ts));
  }

  /** The replies in a thread, oldest first (without the root). */
  replies(channel: string, threadTs: string): FakeMessage[] {
    return this.messages.filter((m) => m.channel === channel && m.thread_ts === threadTs && m.ts !== threadTs);
  }

  private nextTs(): string {
    const sec = Math.max(Math.floor(Date.now() / 1000), this.lastSec);
    this.lastSec = sec;
    return `${sec}.${String(++this.seq).padStart(6, '0')}`;
  }

  private async readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  private parseArgs(req: IncomingMessage, raw: Buffer): Args {
    const type = (req.headers['content-type'] ?? '').toLowerCase();
    const text = raw.toString('utf8');
    let args: Args = {};
    if (type.includes('application/json')) args = text ? (JSON.parse(text) as Args) : {};
    else if (type.includes('x-www-form-urlencoded')) {
      const q = parseQuery(text);
      for (const [k, v] of Object.entries(q)) args[k] = Array.isArray(v) ? v[0] : v;
    } else if (type.includes('multipart/form-data')) {
      args = {};
    }
    // The SDK sends nested arguments as JSON strings in form bodies.
    for (const k of [
      'blocks',
      'view',
      'files',
      'attachments',
      'chunks',
      'metadata',
      'prompts',
      'loading_messages',
      'unfurls',
      'error',
    ]) {
      if (typeof args[k] === 'string') {
        try {
          args[k] = JSON.parse(args[k] as string);
        } catch {
          // leave as is: validation below refuses it
        }
      }
    }
    return args;
  }

  private send(res: ServerResponse, status: number, body: Args, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  /** Token bucket; returns seconds to wait when empty. */
  private take(key: string, capacity: number, perSec: number): number {
    const now = (this.opts.now ?? Date.now)();
    const b = this.buckets.get(key) ?? { tokens: capacity, at: now };
    b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * perSec);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / perSec));
  }

  /** Bodies the bot posted to response URLs (`responseUrl(id)`), in order. */
  readonly responses: Array<{ id: string; body: Record<string, unknown> }> = [];
  /** Bodies a response URL refused (an image block Slack could not download). */
  readonly refusedResponses: Array<{ id: string; body: Record<string, unknown> }> = [];

  /** A response_url for an interaction payload; what the bot posts there lands in `responses`. */
  responseUrl(id: string): string {
    return `${this.url}/response/${encodeURIComponent(id)}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = await this.readBody(req);
    if (url.pathname.startsWith('/response/')) {
      const id = decodeURIComponent(url.pathname.split('/')[2] ?? '');
      const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
      // A response_url refuses an unfetchable image block too (its answer names no block: recorded
      // in `refusedResponses`, and the body is not shown).
      if (this.imageFailure(body)) {
        this.refusedResponses.push({ id, body });
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end('invalid_blocks');
        return;
      }
      this.responses.push({ id, body });
      this.noteBrokenAccessories(`response:${id}`, '', body.blocks);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (url.pathname.startsWith('/upload/')) {
      const id = url.pathname.split('/')[2]!;
      const up = this.uploads.get(id);
      if (!up) return this.send(res, 404, { ok: false });
      up.data = raw;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`OK - ${raw.length}`);
      return;
    }
    if (url.pathname.startsWith('/files-pri/')) {
      const id = url.pathname.split('/')[2]!;
      const f = this.files.get(id);
      this.calls.push({ method: 'files.download', args: { id }, at: Date.now(), status: 200, response: {} });
      // Any installed workspace's bot token reads files, as the default workspace's does.
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (token !== this.botToken && 'error' in this.workspaces.check(token)) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Sign in to Slack</body></html>');
        return;
      }
      if (!f) return this.send(res, 404, { ok: false });
      res.writeHead(200, { 'content-type': f.mime, 'content-length': String(f.data.length) });
      res.end(f.data);
      return;
    }
    const method = url.pathname.split('/').filter(Boolean).pop() ?? '';
    const outside = this.opts.servePrefix !== undefined && !url.pathname.startsWith(this.opts.servePrefix);
    if (outside || this.opts.missingMethods?.includes(method)) {
      this.calls.push({ method, args: {}, at: Date.now(), status: 404, response: {} });
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    let args: Args;
    try {
      args = this.parseArgs(req, raw);
    } catch {
      return this.record(res, method, {}, 200, { ok: false, error: 'invalid_json' });
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(args.token ?? '');
    const early = this.workspaceAnswer(method, args, token);
    if (early) return this.record(res, method, args, 200, early);

    const held = this.holds.get(method);
    if (held) {
      held.arrived++;
      await held.released;
    }
    const forced = this.forced.get(method);
    if (forced && forced.count > 0) {
      forced.count--;
      return this.refuse(res, method, args, forced.retryAfterSec);
    }
    if (method === 'chat.postMessage') {
      const wait = this.take(`post:${String(args.channel)}`, this.postBurst, 1);
      if (wait > 0) return this.refuse(res, method, args, wait);
    }
    if (method === 'assistant.threads.setStatus') {
      const wait = this.take(`setStatus:${String(args.channel_id)}`, STATUS_PER_MINUTE, STATUS_PER_MINUTE / 60);
      if (wait > 0) return this.refuse(res, method, args, wait);
    }
    if (this.opts.historyLimits === 'distributed' && HISTORY_METHODS.includes(method)) {
      const wait = this.take(`history:${this.callTeam ?? this.team}`, 1, 1 / 60);
      if (wait > 0) {
        this.historyRefused++;
        return this.refuse(res, method, args, wait);
      }
    }
    const perMinute = TIER_BUDGETS[method];
    if (perMinute !== undefined) {
      const wait = this.take(`${method}:${this.callTeam ?? this.team}`, perMinute, perMinute / 60);
      if (wait > 0) return this.refuse(res, method, args, wait);
    }
    const out = this.answer(method, args);
    return this.record(res, method, args, 200, out);
  }

  /**
   * Whose token made the call (kept in `callTeam`), and the answer when that settles it: the OAuth
   * exchange, a refused token, another workspace's channel, or auth.test for an installed workspace.
   */
  private workspaceAnswer(method: string, args: Args, token: string): Args | undefined {
    this.callTeam = undefined;
    if (method === 'oauth.v2.access') {
      const scope =
        'commands,chat:write,app_mentions:read,channels:history,groups:history,im:history,files:read,files:write,users:read,channels:read,groups:read,assistant:write,links:read,links:write';
      return this.workspaces.access(args, { userId: this.botUserId, scope });
    }
    const known = token === this.botToken ? { team: this.team } : this.workspaces.check(token);
    if ('error' in known) return { ok: false, error: known.error };
    this.callTeam = this.workspaces.actingTeam(known.team, args);
    if (this.workspaces.foreign(known.team, args)) return { ok: false, error: 'channel_not_found' };
    const org =
      method === 'auth.test'
        ? this.workspaces.orgAuthTest(known.team, { userId: this.botUserId, botId: this.botId })
        : undefined;
    if (org) return org;
    if (method === 'auth.test' && known.team !== this.team) {
      return {
        ok: true,
        team_id: known.team,
        user_id: this.botUserId,
        bot_id: this.botId,
        url: 'https://fake.slack.test/',
      };
    }
    return undefined;
  }

  private refuse(res: ServerResponse, method: string, args: Args, retryAfterSec: number): void {
    this.rateLimited++;
    this.calls.push({ method, args, at: Date.now(), status: 429, response: { ok: false, error: 'ratelimited' } });
    this.send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfterSec) });
  }

  private record(res: ServerResponse, method: string, args: Args, status: number, response: Args): void {
    this.calls.push({
      method,
      args,
      at: Date.now(),
      status,
      response,
      ...(this.callTeam ? { team: this.callTeam } : {}),
    });
    this.send(res, status, response);
  }

  /** Slack's checks on text and blocks; an error code or undefined. */
  /** The block Slack named in its last invalid_blocks (`[json-pointer:/blocks/N]`), as Slack does. */
  private refusedBlock: number | undefined;

  private refusedAt(i: number): string {
    this.refusedBlock = i;
    return 'invalid_blocks';
  }

  /** A refusal of the content, with the pointer of the block it names when there is one. */
  private refusal(code: string): Args {
    const at = this.refusedBlock;
    this.refusedBlock = undefined;
    if (code !== 'invalid_blocks' || at === undefined) return { ok: false, error: code };
    const errors = [`unsupported or invalid block [json-pointer:/blocks/${at}]`];
    return { ok: false, error: code, errors, response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) } };
  }

  private checkContent(args: Args, needText = true): string | undefined {
    this.refusedBlock = undefined;
    const text = typeof args.text === 'string' ? args.text : '';
    if (text.length > LIMITS.text) return 'msg_too_long';
    const blocks = args.blocks;
    if (blocks !== undefined) {
      if (!Array.isArray(blocks) || blocks.length > LIMITS.blocks) return 'invalid_blocks';
      const actionIds = new Set<string>();
      for (const b of blocks as Array<Record<string, unknown>>) {
        if (typeof b !== 'object' || b === null || typeof b.type !== 'string') return 'invalid_blocks';
        const t = b.text as { text?: unknown } | undefined;
        if (b.type === 'section') {
          if (t && (typeof t.text !== 'string' || t.text.length === 0 || t.text.length > LIMITS.sectionText))
            return 'invalid_blocks';
          if (!t && !Array.isArray(b.fields)) return 'invalid_blocks';
        }
        if (b.type === 'context_actions' && !this.validContextActions(b, actionIds)) return 'invalid_blocks';
        if (b.type === 'data_table' && (this.opts.newBlocks === 'refuse' || dataTableProblem(b)))
          return 'invalid_blocks';
        if (b.type === 'data_visualization') {
          // An older workspace does not know the block (and says which); a newer one checks it.
          if (this.opts.newBlocks === 'refuse' || dataVisualizationProblem(b)) return this.refusedAt(blocks.indexOf(b));
          if (blocks.filter((x) => x.type === 'data_visualization').length > MAX_CHARTS_PER_MESSAGE)
            return this.refusedAt(blocks.indexOf(b));
        }
        if (b.type === 'carousel' || b.type === 'card') {
          // An older workspace knows neither block; a newer one checks them by the reference.
          if (this.opts.cards === 'refuse') return this.refusedAt(blocks.indexOf(b));
          if ((b.type === 'carousel' ? carouselProblem : cardProblem)(b, actionIds))
            return this.refusedAt(blocks.indexOf(b));
        }
        if (b.type === 'actions') {
          for (const el of (b.elements as Array<Record<string, unknown>>) ?? []) {
            const id = String(el.action_id ?? '');
            if (id && actionIds.has(id)) return 'invalid_blocks';
            actionIds.add(id);
            const label = (el.text as { text?: string } | undefined)?.text ?? '';
            if (label.length > LIMITS.buttonText) return 'invalid_blocks';
          }
        }
      }
    }
    if (needText && text.length === 0 && (!Array.isArray(blocks) || blocks.length === 0)) return 'no_text';
    return undefined;
  }

  /** Slack's context_actions block: feedback_buttons (or icon_button) elements only. */
  private validContextActions(b: Record<string, unknown>, actionIds: Set<string>): boolean {
    const elements = b.elements;
    if (!Array.isArray(elements) || elements.length < 1 || elements.length > 5) return false;
    const okButton = (x: unknown): boolean => {
      if (typeof x !== 'object' || x === null) return false;
      const btn = x as { text?: { type?: unknown; text?: unknown }; value?: unknown };
      return (
        btn.text?.type === 'plain_text' &&
        typeof btn.text.text === 'string' &&
        btn.text.text.length > 0 &&
        btn.text.text.length <= LIMITS.buttonText &&
        typeof btn.value === 'string' &&
        btn.value.length > 0 &&
        btn.value.length <= 2000
      );
    };
    for (const el of elements as Array<Record<string, unknown>>) {
      if (typeof el !== 'object' || el === null) return false;
      const id = typeof el.action_id === 'string' ? el.action_id : '';
      if (id) {
        if (id.length > 255 || actionIds.has(id)) return false;
        actionIds.add(id);
      }
      if (el.type === 'feedback_buttons') {
        if (!okButton(el.positive_button) || !okButton(el.negative_button)) return false;
      } else if (el.type !== 'icon_button') {
        return false;
      }
    }
    return true;
  }

  private assistantThreadOf(a: Args): FakeAssistantThread | undefined {
    const channel = typeof a.channel_id === 'string' ? a.channel_id : '';
    const thread = typeof a.thread_ts === 'string' ? a.thread_ts : '';
    if (!channel || !thread) return undefined;
    const key = `${channel}:${thread}`;
    let t = this.assistantThreads.get(key);
    if (!t) {
      t = { channel, thread_ts: thread, statuses: [] };
      this.assistantThreads.set(key, t);
    }
    return t;
  }

  private answerAssistant(method: string, a: Args): Args {
    if (this.opts.assistant && this.opts.assistant !== 'on') return { ok: false, error: this.opts.assistant };
    const isStr = (v: unknown): v is string => typeof v === 'string';
    switch (method) {
      case 'assistant.threads.setStatus': {
        const loading = a.loading_messages;
        if (!isStr(a.status)) return { ok: false, error: 'invalid_arguments' };
        if (loading !== undefined && (!Array.isArray(loading) || loading.length > 10 || !loading.every(isStr)))
          return { ok: false, error: 'invalid_arguments' };
        const t = this.assistantThreadOf(a);
        if (!t) return { ok: false, error: 'invalid_arguments' };
        t.statuses.push({
          status: a.status,
          ...(Array.isArray(loading) ? { loading_messages: loading as string[] } : {}),
          at: Date.now(),
          seq: this.calls.length,
        });
        return { ok: true };
      }
      case 'assistant.threads.setSuggestedPrompts': {
        const prompts = a.prompts;
        const valid =
          Array.isArray(prompts) &&
          prompts.length >= 1 &&
          prompts.length <= 4 &&
          prompts.every(
            (p: unknown) =>
              typeof p === 'object' &&
              p !== null &&
              isStr((p as Args).title) &&
              isStr((p as Args).message) &&
              ((p as Args).title as string).length > 0 &&
              ((p as Args).message as string).length > 0,
          );
        if (!valid || (typeof a.thread_ts !== 'string' && a.thread_ts !== undefined))
          return { ok: false, error: 'invalid_arguments' };
        if (a.thread_ts === undefined) {
          if (!isStr(a.channel_id) || a.channel_id === '') return { ok: false, error: 'invalid_arguments' };
          const sets = this.dmPrompts.get(a.channel_id) ?? [];
          sets.push(prompts as Array<{ title: string; message: string }>);
          this.dmPrompts.set(a.channel_id, sets);
          return { ok: true };
        }
        if (this.opts.agentView) return { ok: true };
        const t = this.assistantThreadOf(a);
        if (!t) return { ok: false, error: 'invalid_arguments' };
        t.prompts = prompts as Array<{ title: string; message: string }>;
        if (isStr(a.title)) t.promptsTitle = a.title;
        return { ok: true };
      }
      case 'assistant.threads.setTitle': {
        if (!isStr(a.title) || a.title.length === 0) return { ok: false, error: 'invalid_arguments' };
        const t = this.assistantThreadOf(a);
        if (!t) return { ok: false, error: 'invalid_arguments' };
        t.title = a.title;
        return { ok: true };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** chat.unfurl: a message's (channel and ts) or a composer's (unfurl_id and source) links. */
  private answerUnfurl(a: Args): Args {
    const where = isStr(a.unfurl_id) ? isStr(a.source) : isStr(a.channel) && isStr(a.ts);
    if (!where) return { ok: false, error: 'invalid_arguments' };
    if (a.metadata === undefined && !isObj(a.unfurls)) return { ok: false, error: 'invalid_unfurls' };
    if (a.metadata !== undefined && this.opts.workObjects === 'off') return { ok: false, error: 'feature_not_enabled' };
    if (isObj(a.unfurls))
      for (const u of Object.values(a.unfurls)) {
        const bad = isObj(u) ? this.checkContent({ blocks: u.blocks }, false) : 'invalid_unfurls';
        if (bad) return { ok: false, error: bad };
      }
    const problems = a.metadata === undefined ? [] : unfurlMetadataProblems(a.metadata);
    this.unfurls.push({
      ...(isStr(a.channel) ? { channel: a.channel } : {}),
      ...(isStr(a.ts) ? { ts: a.ts } : {}),
      ...(isStr(a.unfurl_id) ? { unfurl_id: a.unfurl_id } : {}),
      ...(isObj(a.metadata) && problems.length === 0 ? { metadata: a.metadata } : {}),
      ...(isObj(a.unfurls) ? { unfurls: a.unfurls } : {}),
    });
    return this.metadataAnswer(problems);
  }

  /** Slack takes a malformed Work Object with `ok` and a warning, and drops it. */
  private metadataAnswer(problems: string[]): Args {
    if (problems.length === 0) return { ok: true };
    this.workObjectProblems.push(...problems);
    return { ok: true, warning: 'invalid_metadata_format', response_metadata: { messages: problems } };
  }

  /** How many messages a history read returns: its `limit` (Slack's default 100), 15 at most when distributed. */
  private historyMax(a: Args): number {
    const asked = Number(a.limit ?? 100) || 100;
    return this.opts.historyLimits === 'distributed' ? Math.min(asked, DISTRIBUTED_HISTORY_MAX) : asked;
  }

  private unfetchable(url: unknown): boolean {
    const hosts = this.opts.unfetchableImageHosts ?? [];
    try {
      return typeof url === 'string' && hosts.includes(new URL(url).hostname);
    } catch {
      return false;
    }
  }

  /**
   * The refusal Slack gives a message with an image block (or a context image) it cannot download,
   * or undefined. Section accessories are not fetched before the message is accepted: see
   * `noteBrokenAccessories`.
   */
  private imageFailure(args: Args): Args | undefined {
    if (!Array.isArray(args.blocks)) return undefined;
    const pointers: string[] = [];
    (args.blocks as Array<Record<string, unknown>>).forEach((b, i) => {
      if (b.type === 'image' && this.unfetchable(b.image_url)) pointers.push(`/blocks/${i}/image_url`);
      ((b.elements as Array<Record<string, unknown>> | undefined) ?? []).forEach((el, j) => {
        if (el.type === 'image' && this.unfetchable(el.image_url))
          pointers.push(`/blocks/${i}/elements/${j}/image_url`);
        // A carousel's card: its hero image is fetched like an image block's.
        const hero = el.hero_image as Record<string, unknown> | undefined;
        if (el.type === 'card' && hero && this.unfetchable(hero.image_url))
          pointers.push(`/blocks/${i}/elements/${j}/hero_image/image_url`);
      });
    });
    if (pointers.length === 0) return undefined;
    if (this.opts.imageRefusalNames === 'first') pointers.splice(1);
    const errors = pointers.map((p) => `downloading image failed [json-pointer:${p}]`);
    return {
      ok: false,
      error: 'invalid_blocks',
      errors,
      response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
    };
  }

  /** An accepted message's section accessories Slack cannot fetch: shown as broken icons. */
  private noteBrokenAccessories(channel: string, ts: string, blocks: unknown): void {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks as Array<Record<string, unknown>>) {
      const acc = b.accessory as Record<string, unknown> | undefined;
      if (acc?.type === 'image' && this.unfetchable(acc.image_url))
        this.brokenImagesShown.push({ channel, ts, url: String(acc.image_url) });
    }
  }

  private answer(method: string, args: Args): Args {
    if (method.startsWith('assistant.threads.')) return this.answerAssistant(method, args);
    const a = withMarkdownText(method, args);
    switch (method) {
      case 'auth.test':
        if (this.opts.authTest) return this.opts.authTest;
        return {
          ok: true,
          url: 'https://fake.slack.test/',
          team: 'Fake Team',
          user: 'bridge',
          team_id: this.team,
          user_id: this.botUserId,
          bot_id: this.botId,
        };
      case 'users.info': {
        const id = String(a.user ?? '');
        if (!id) return { ok: false, error: 'user_not_found' };
        const name = this.users[id] ?? `user-${id.toLowerCase()}`;
        const isBot = id === this.botUserId || this.bots.has(id);
        return {
          ok: true,
          user: {
            id,
            name,
            real_name: name,
            is_bot: isBot,
            is_admin: this.workspaceAdmins.has(id) || this.workspaceOwners.has(id),
            is_owner: this.workspaceOwners.has(id),
            is_org_admin: this.orgAdmins.has(id) || this.orgOwners.has(id),
            is_org_owner: this.orgOwners.has(id),
            profile: { display_name: name, real_name: name },
          },
        };
      }
      case 'chat.postMessage': {
        const channel = String(a.channel ?? '');
        if (!channel || this.opts.notInChannels?.includes(channel)) return { ok: false, error: 'channel_not_found' };
        const bad = this.checkContent(a);
        if (bad) return this.refusal(bad);
        const image = this.imageFailure(a);
        if (image) return image;
        // Users' messages (thread roots of mentions and DMs) are not in the fake's store: any thread_ts goes.
        const thread = typeof a.thread_ts === 'string' && a.thread_ts ? a.thread_ts : undefined;
        const msg: FakeMessage = {
          channel,
          ts: this.nextTs(),
          text: String(a.text ?? ''),
          blocks: (a.blocks as unknown[]) ?? [],
          user: this.botUserId,
          bot_id: this.botId,
          history: [String(a.text ?? '')],
          ...(thread ? { thread_ts: thread } : {}),
        };
        this.messages.push(msg);
        this.noteBrokenAccessories(channel, msg.ts, a.blocks);
        return { ok: true, channel, ts: msg.ts, message: { ...msg, history: undefined } };
      }
      case 'chat.update': {
        const msg = this.message(String(a.channel ?? ''), String(a.ts ?? ''));
        if (!msg) return { ok: false, error: 'message_not_found' };
        const bad = this.checkContent(a);
        if (bad) return this.refusal(bad);
        const image = this.imageFailure(a);
        if (image) return image;
        msg.text = String(a.text ?? '');
        if (a.blocks !== undefined) msg.blocks = a.blocks as unknown[];
        msg.history.push(msg.text);
        this.noteBrokenAccessories(msg.channel, msg.ts, a.blocks);
        return { ok: true, channel: msg.channel, ts: msg.ts, text: msg.text };
      }
      case 'chat.delete': {
        const i = this.messages.findIndex((m) => m.channel === a.channel && m.ts === a.ts);
        if (i < 0) return { ok: false, error: 'message_not_found' };
        this.messages.splice(i, 1);
        return { ok: true, channel: a.channel, ts: a.ts };
      }
      case 'chat.postEphemeral': {
        const bad = this.checkContent(a);
        if (bad) return this.refusal(bad);
        if (!a.channel || !a.user) return { ok: false, error: 'channel_not_found' };
        if (this.opts.notInChannels?.includes(String(a.channel))) return { ok: false, error: 'channel_not_found' };
        const image = this.imageFailure(a);
        if (image) return image;
        this.ephemerals.push({
          channel: String(a.channel),
          user: String(a.user),
          text: String(a.text ?? ''),
          blocks: (a.blocks as unknown[]) ?? [],
          ...(typeof a.thread_ts === 'string' ? { thread_ts: a.thread_ts } : {}),
        });
        const ts = this.nextTs();
        this.noteBrokenAccessories(String(a.channel), ts, a.blocks);
        return { ok: true, message_ts: ts };
      }
      case 'chat.startStream': {
        if (this.streaming !== 'on') return { ok: false, error: this.streaming };
        const channel = String(a.channel ?? '');
        const thread = typeof a.thread_ts === 'string' ? a.thread_ts : '';
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (!thread) return { ok: false, error: 'invalid_arguments' };
        const text = streamText(a);
        const msg: FakeMessage = {
          channel,
          ts: this.nextTs(),
          thread_ts: thread,
          text,
          blocks: [],
          user: this.botUserId,
          bot_id: this.botId,
          history: [text],
          streaming: true,
        };
        this.messages.push(msg);
        return { ok: true, channel, ts: msg.ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        if (this.streaming !== 'on') return { ok: false, error: this.streaming };
        const msg = this.message(String(a.channel ?? ''), String(a.ts ?? ''));
        if (!msg) return { ok: false, error: 'message_not_found' };
        if (!msg.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
        const add = streamText(a);
        if (method === 'chat.appendStream' && add.length === 0) return { ok: false, error: 'invalid_arguments' };
        if (msg.text.length + add.length > LIMITS.text) return { ok: false, error: 'msg_too_long' };
        const badBlocks = method === 'chat.stopStream' ? this.checkContent({ blocks: a.blocks }, false) : undefined;
        if (badBlocks) return { ok: false, error: badBlocks };
        msg.text += add;
        msg.history.push(msg.text);
        if (method === 'chat.stopStream') {
          msg.streaming = false;
          if (Array.isArray(a.blocks)) msg.blocks = a.blocks as unknown[];
        }
        return { ok: true, channel: msg.channel, ts: msg.ts };
      }
      case 'views.open':
      case 'views.push':
      case 'views.update': {
        if (method !== 'views.update' && !a.trigger_id) return { ok: false, error: 'invalid_trigger_id' };
        const view = a.view as Args | undefined;
        if (!view || typeof view !== 'object' || !Array.isArray(view.blocks) || view.blocks.length > 100)
          return { ok: false, error: 'invalid_arguments' };
        const id = `V${String(++this.seq).padStart(8, '0')}`;
        this.views.push({ ...view, id });
        return { ok: true, view: { ...view, id } };
      }
      case 'conversations.replies': {
        const channel = String(a.channel ?? '');
        const ts = String(a.ts ?? '');
        const root = this.message(channel, ts);
        if (!root) return { ok: false, error: 'thread_not_found' };
        return {
          ok: true,
          messages: [root, ...this.replies(channel, ts)]
            .slice(0, this.historyMax(a))
            .map(({ history: _h, ...m }) => ({ ...m, type: 'message' })),
        };
      }
      case 'conversations.history':
        return {
          ok: true,
          messages: this.channelMessages(String(a.channel ?? ''))
            .reverse()
            .slice(0, this.historyMax(a))
            .map(({ history: _h, ...m }) => ({ ...m, type: 'message' })),
        };
      case 'chat.unfurl':
        return this.answerUnfurl(a);
      case 'entity.presentDetails': {
        if (!isStr(a.trigger_id)) return { ok: false, error: 'invalid_trigger_id' };
        if (this.opts.workObjects === 'off') return { ok: false, error: 'feature_not_enabled' };
        const problems = a.metadata === undefined ? [] : entityProblems(a.metadata, '/metadata', false);
        this.presentedDetails.push({
          trigger_id: a.trigger_id,
          ...(isObj(a.metadata) ? { metadata: a.metadata } : {}),
          ...(a.error !== undefined ? { error: a.error } : {}),
        });
        return this.metadataAnswer(problems);
      }
      case 'chat.getPermalink': {
        const channel = String(a.channel ?? '');
        const ts = String(a.message_ts ?? '');
        if (!channel || !ts) return { ok: false, error: 'invalid_arguments' };
        return { ok: true, channel, permalink: `https://fake.slack.test/archives/${channel}/p${ts.replace('.', '')}` };
      }
      case 'conversations.info': {
        const channel = String(a.channel ?? '');
        if (!channel) return { ok: false, error: 'channel_not_found' };
        const isMember = !this.opts.notInChannels?.includes(channel);
        return {
          ok: true,
          channel: { id: channel, name: this.channelNames[channel] ?? channel.toLowerCase(), is_member: isMember },
        };
      }
      case 'conversations.members': {
        const channel = String(a.channel ?? '');
        const members = this.channelMembers[channel];
        if (!members) return { ok: false, error: 'channel_not_found' };
        return { ok: true, members, response_metadata: { next_cursor: '' } };
      }
      case 'views.publish': {
        const view = a.view as Args | undefined;
        if (!a.user_id || !view || view.type !== 'home' || !Array.isArray(view.blocks) || view.blocks.length > 100)
          return { ok: false, error: 'invalid_arguments' };
        this.homeViews.push({ user: String(a.user_id), view });
        return { ok: true, view: { ...view, id: `V${String(++this.seq).padStart(8, '0')}` } };
      }
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(a.users ?? 'X')}` } };
      case 'files.getUploadURLExternal': {
        const id = `F${String(++this.seq).padStart(8, '0')}`;
        this.uploads.set(id, { name: String(a.filename ?? 'file'), data: Buffer.alloc(0) });
        return { ok: true, upload_url: `${this.url}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const files = Array.isArray(a.files) ? (a.files as Array<{ id?: string; title?: string }>) : [];
        const channel = typeof a.channel_id === 'string' ? a.channel_id : undefined;
        const thread = typeof a.thread_ts === 'string' ? a.thread_ts : undefined;
        const out = [];
        for (const f of files) {
          const up = f.id ? this.uploads.get(f.id) : undefined;
          if (!up || !f.id) return { ok: false, error: 'file_not_found' };
          up.channel = channel;
          if (thread) up.thread_ts = thread;
          out.push({ id: f.id, name: up.name, title: f.title ?? up.name, size: up.data.length });
        }
        if (channel) {
          this.messages.push({
            channel,
            ts: this.nextTs(),
            ...(thread ? { thread_ts: thread } : {}),
            text: String(a.initial_comment ?? ''),
            blocks: [],
            user: this.botUserId,
            bot_id: this.botId,
            history: [],
            files: out.map((f) => ({ id: f.id, name: f.name })),
          });
        }
        return { ok: true, files: out };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

export async function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(opts).start();
}
