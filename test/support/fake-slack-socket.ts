/**
 * Slack's Socket Mode side for end-to-end tests, wrapped around the fake Web API (FakeSlack).
 *
 * One HTTP server on 127.0.0.1 serves as SLACK_API_URL: `apps.connections.open` (app token only,
 * like Slack: the bot token is refused) answers with a single-use ws:// URL on the same server;
 * every other method is passed through unchanged to the FakeSlack, which records it. A client that
 * connects with a valid ticket gets `{type:'hello'}`; a test then pushes envelopes (slash_commands,
 * events_api, interactive) and waits, event-driven, for their acks `{envelope_id, payload?}`.
 *
 * Also `startSlackSocketE2E`: the whole bridge in Socket Mode (local chatbot service, this fake, the
 * app from src/app.ts configured through the environment with SLACK_APP_TOKEN and no signing secret).
 */
import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { z } from 'zod';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/deployment/config';
import { inProcessEnv, startTestService, tempDir } from './app-env';
import { FakeSlack, type FakeSlackOptions } from '../../fakes/fake-slack';
import { ACK_WINDOW_MS, type LateAck, SlackDriver } from '../../fakes/slack-requests';
import type { SlackE2E } from './slack-e2e';
import { silentLog } from './silent-log';

export type EnvelopeType = 'slash_commands' | 'events_api' | 'interactive';

/** What the client sent back for an envelope. */
export interface SocketAck {
  envelope_id: string;
  payload?: Record<string, unknown>;
}

export interface OpenCall {
  authorization: string;
  ok: boolean;
}

const ackSchema = z.object({ envelope_id: z.string().min(1), payload: z.record(z.unknown()).optional() });

interface Waiter {
  resolve: (ack: SocketAck) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class FakeSlackSocket {
  readonly appToken: string;
  readonly appId = 'A0APP';
  /** Every apps.connections.open call, in order. */
  readonly opens: OpenCall[] = [];
  /** Acks by envelope id, in arrival order. */
  readonly acks = new Map<string, SocketAck>();
  /** Acks that came after Slack's 3 s window (ACK_WINDOW_MS): Slack counts those envelopes failed. */
  readonly lateAcks: LateAck[] = [];
  /** Messages from the client that were not acks of a pushed envelope. */
  readonly strays: string[] = [];
  /** WebSocket connections accepted so far (a reconnect adds one). */
  connections = 0;
  private server: Server | undefined;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly sentAt = new Map<string, { at: number; type: EnvelopeType }>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly helloWaiters: Array<() => void> = [];
  private current: WebSocket | undefined;
  private counter = 0;
  private failing = { count: 0, status: 503 };
  url = '';

  constructor(
    readonly fake: FakeSlack,
    opts: { appToken?: string } = {},
  ) {
    this.appToken = opts.appToken ?? 'xapp-1-A0APP-fake-app-token';
  }

  /** Base URL to put in SLACK_API_URL (Web API calls pass through to the fake). */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** The socket the app is connected on, once it has been greeted. */
  get connected(): boolean {
    return this.current !== undefined && this.current.readyState === this.current.OPEN;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'proxy_failed', detail: String(err) }));
      });
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const list of this.waiters.values()) {
      for (const w of list) {
        clearTimeout(w.timer);
        w.reject(new Error('fake socket closed'));
      }
    }
    this.waiters.clear();
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Resolves once a client is connected and greeted (now, if it already is). */
  waitConnected(timeoutMs = 10_000): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.helloWaiters.indexOf(done);
        if (i >= 0) this.helloWaiters.splice(i, 1);
        reject(new Error(`no Socket Mode connection within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.helloWaiters.push(done);
    });
  }

  /** Resolves with the close code when the current connection closes (rejects after timeoutMs). */
  nextClose(timeoutMs = 5_000): Promise<{ code: number }> {
    const ws = this.current;
    if (!ws) return Promise.reject(new Error('no Socket Mode client connected'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the Socket Mode connection stayed open for ${timeoutMs} ms`)),
        timeoutMs,
      );
      ws.once('close', (code: number) => {
        clearTimeout(timer);
        resolve({ code });
      });
    });
  }

  /** Send an envelope on the current connection; returns its envelope_id. */
  push(type: EnvelopeType, payload: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const ws = this.current;
    if (!ws || ws.readyState !== ws.OPEN) throw new Error('no Socket Mode client connected');
    const envelopeId = randomUUID();
    this.sentAt.set(envelopeId, { at: Date.now(), type });
    const acceptsResponsePayload = type === 'slash_commands';
    ws.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type,
        payload,
        accepts_response_payload: acceptsResponsePayload,
        ...extra,
      }),
    );
    return envelopeId;
  }

  /**
   * The ack of `envelopeId`: resolves when it arrives (at once if it has), rejects after timeoutMs
   * (a bound on the wait; whether it came within Slack's window is recorded in `lateAcks`).
   */
  waitAck(envelopeId: string, timeoutMs = 15_000): Promise<SocketAck> {
    const got = this.acks.get(envelopeId);
    if (got) return Promise.resolve(got);
    return new Promise<SocketAck>((resolve, reject) => {
      const list = this.waiters.get(envelopeId) ?? [];
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const l = this.waiters.get(envelopeId) ?? [];
          l.splice(l.indexOf(waiter), 1);
          reject(new Error(`no ack for envelope ${envelopeId} within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      list.push(waiter);
      this.waiters.set(envelopeId, list);
    });
  }

  /** Ask the client to reconnect, as Slack does when it recycles a connection. */
  requestDisconnect(reason = 'refresh_requested'): void {
    this.current?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-socket' } }));
  }

  /** A slash command, as Socket Mode delivers it (the HTTP form fields as a JSON object). */
  slashCommand(
    command: string,
    text: string,
    who: { user?: string; userName?: string; channel?: string; team?: string } = {},
  ): string {
    const user = who.user ?? 'U0USER1';
    return this.push('slash_commands', {
      token: 'legacy-verification-token',
      team_id: who.team ?? this.fake.team,
      team_domain: 'fake',
      channel_id: who.channel ?? 'C0GENERAL',
      channel_name: 'general',
      user_id: user,
      user_name: who.userName ?? user.toLowerCase(),
      command,
      text,
      api_app_id: this.appId,
      is_enterprise_install: 'false',
      response_url: 'http://127.0.0.1:9/response-url-unused',
      trigger_id: `trig-${++this.counter}-${randomUUID()}`,
    });
  }

  /** An Events API delivery; returns the envelope and event ids. */
  event(
    event: Record<string, unknown>,
    opts: { eventId?: string; retryAttempt?: number } = {},
  ): { envelopeId: string; eventId: string } {
    const eventId = opts.eventId ?? `Ev${Date.now()}${++this.counter}`;
    const envelopeId = this.push(
      'events_api',
      {
        token: 'legacy-verification-token',
        team_id: this.fake.team,
        api_app_id: this.appId,
        type: 'event_callback',
        event_id: eventId,
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [
          { team_id: this.fake.team, user_id: this.fake.botUserId, is_bot: true, is_enterprise_install: false },
        ],
        event: { event_ts: event.ts, ...event },
      },
      { retry_attempt: opts.retryAttempt ?? 0, retry_reason: opts.retryAttempt ? 'timeout' : '' },
    );
    return { envelopeId, eventId };
  }

  /** A click on a button of a message the bot posted (the block element as the fake recorded it). */
  click(
    button: { action_id: string; value?: string; block_id?: string },
    where: { channel: string; messageTs: string; threadTs?: string },
    who: { user?: string } = {},
  ): string {
    const user = who.user ?? 'U0USER1';
    const thread = where.threadTs ? { thread_ts: where.threadTs } : {};
    return this.push('interactive', {
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: this.fake.team },
      api_app_id: this.appId,
      token: 'legacy',
      container: {
        type: 'message',
        message_ts: where.messageTs,
        channel_id: where.channel,
        is_ephemeral: false,
        ...thread,
      },
      trigger_id: `trig-${++this.counter}`,
      team: { id: this.fake.team, domain: 'fake' },
      channel: { id: where.channel, name: 'general' },
      message: { type: 'message', ts: where.messageTs, ...thread },
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.endsWith('/apps.connections.open')) return this.connectionsOpen(req, res);
    // Everything else is the Web API: the fake answers and records it.
    await new Promise<void>((resolve, reject) => {
      const upstream = request(
        `${this.fake.url}${req.url ?? '/'}`,
        { method: req.method, headers: { ...req.headers, host: new URL(this.fake.url).host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          up.on('end', resolve);
          up.on('error', reject);
        },
      );
      upstream.on('error', reject);
      req.pipe(upstream);
    });
  }

  /** The next `count` apps.connections.open calls answer HTTP `status` (Slack having a bad moment). */
  failOpens(count: number, status = 503): void {
    this.failing = { count, status };
  }

  private connectionsOpen(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    if (this.failing.count > 0) {
      this.failing.count--;
      this.opens.push({ authorization: 'failed', ok: false });
      res.writeHead(this.failing.status, { 'content-type': 'text/plain' });
      res.end('upstream connect error');
      return;
    }
    const authorization = req.headers.authorization ?? '';
    // Slack answers this method only for an app-level token (a bot token gets not_allowed_token_type).
    const ok = authorization === `Bearer ${this.appToken}`;
    this.opens.push({ authorization: authorization.replace(/(Bearer x\w+-).*/, '$1***'), ok });
    let body: Record<string, unknown>;
    if (ok) {
      const ticket = randomUUID();
      this.tickets.add(ticket);
      body = { ok: true, url: `${this.url.replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${this.appId}` };
    } else {
      body = { ok: false, error: authorization.startsWith('Bearer xoxb-') ? 'not_allowed_token_type' : 'invalid_auth' };
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ticket = url.searchParams.get('ticket') ?? '';
    // A ticket is good for one connection, as Slack's are.
    if (url.pathname !== '/link/' || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.connections++;
    this.current = ws;
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) this.onMessage(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
    });
    ws.on('close', () => {
      if (this.current === ws) this.current = undefined;
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.wss.clients.size,
        debug_info: { host: 'fake-socket', build_number: 1, approximate_connection_time: 3600 },
        connection_info: { app_id: this.appId },
      }),
    );
    for (const done of this.helloWaiters.splice(0)) done();
  }

  private onMessage(text: string): void {
    let parsed: z.SafeParseReturnType<unknown, z.infer<typeof ackSchema>>;
    try {
      parsed = ackSchema.safeParse(JSON.parse(text));
    } catch {
      this.strays.push(text);
      return;
    }
    const sent = parsed.success ? this.sentAt.get(parsed.data.envelope_id) : undefined;
    if (!parsed.success || sent === undefined || this.acks.has(parsed.data.envelope_id)) {
      this.strays.push(text);
      return;
    }
    const afterMs = Date.now() - sent.at;
    if (afterMs > ACK_WINDOW_MS) this.lateAcks.push({ what: sent.type, afterMs });
    const ack: SocketAck = {
      envelope_id: parsed.data.envelope_id,
      ...(parsed.data.payload ? { payload: parsed.data.payload } : {}),
    };
    this.acks.set(ack.envelope_id, ack);
    for (const w of this.waiters.get(ack.envelope_id) ?? []) {
      clearTimeout(w.timer);
      w.resolve(ack);
    }
    this.waiters.delete(ack.envelope_id);
  }
}

export interface SlackSocketE2E extends SlackE2E {
  socket: FakeSlackSocket;
}

/**
 * The whole bridge in Socket Mode. `driver` points at the app's /slack/events with a secret the app
 * does not have: it exists only to show that nothing is served there.
 */
export async function startSlackSocketE2E(
  opts: { fake?: FakeSlackOptions; env?: Record<string, string>; fragmentDelayMs?: number } = {},
): Promise<SlackSocketE2E> {
  const tmp = tempDir('slack-socket-e2e-');
  const svc = await startTestService({ dir: tmp.dir, fragmentDelayMs: opts.fragmentDelayMs ?? 2 });
  const fake = await new FakeSlack({
    users: { U0USER1: 'Ada Lovelace', U0USER2: 'Grace Hopper' },
    ...opts.fake,
  }).start();
  const socket = await new FakeSlackSocket(fake).start();
  const config = loadConfig({
    ...inProcessEnv(svc, tmp.dir),
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_APP_TOKEN: socket.appToken,
    SLACK_API_URL: socket.apiUrl,
    ...opts.env,
  });
  const log = silentLog;
  const app = await startApp(config, { log });
  return {
    app,
    fake,
    socket,
    serviceCalls: [],
    service: svc.service,
    driver: new SlackDriver(`${app.url ?? 'http://127.0.0.1:9'}/slack/events`, 'not-the-apps-secret', fake.team),
    storedAnswers: svc.storedAnswers,
    async close() {
      // The app first: its Socket Mode client must not see the server vanish and start reconnecting.
      await app.close(3000);
      await socket.close();
      await fake.close();
      await svc.close();
      tmp.remove();
    },
  };
}
