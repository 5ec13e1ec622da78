/**
 * The Slack surface: a Bolt app that turns Slack's commands, events and interactions into core
 * calls, and a SurfacePort that turns core's messages into Web API calls.
 *
 * One workspace (SLACK_BOT_TOKEN) or many (OAuth mode: "Add to Slack", each workspace's installation
 * in the state store, see oauth/). HTTP mode: the app's own HTTP server mounts `requestListener` for
 * everything except /healthz (bolt-app.ts). Socket Mode (app token): `start()` connects.
 */
import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { BridgeCore } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { SurfaceRuntime } from '../runtime';
import { registerAgent } from './agent';
import { registerAssistant } from './assistant';
import { AssistantThreads } from './assistant-api';
import { type BoltApp, buildBoltApp } from './bolt-app';
import { singleWorkspaceClients, type TeamClients } from './clients';
import { registerHome } from './home';
import { type BotIdentity, SingleWorkspace } from './identity';
import { registerListeners } from './listeners';
import { registerLeaving } from './oauth/leaving';
import { type OAuthWorkspaces, type SlackOAuthOptions, oauthWorkspaces } from './oauth/oauth-mode';
import type { SlackDistribution } from './distribution';
import { SlackPort } from './port';
import { registerUnfurls } from './unfurl';
import { keepSocketConnected, type SocketKeeper } from './socket-keeper';
import { welcomeInstaller } from './welcome';
import { createWebClient } from './web';

export type { SlackOAuthOptions } from './oauth/oauth-mode';

export interface SlackSurfaceOptions {
  /** One workspace; or `oauth` for many. */
  botToken?: string;
  oauth?: SlackOAuthOptions;
  /** Required in HTTP mode (no appToken), and in OAuth mode. */
  signingSecret?: string;
  /** xapp- token: Socket Mode instead of HTTP. */
  appToken?: string;
  /** Web API base (tests, proxies); Slack's own when unset. */
  apiUrl?: string;
  adminUsers: string[];
  handoffChannel?: string;
  /** Which of Slack's history limits apply (SLACK_DISTRIBUTION). */
  distribution?: SlackDistribution;
  /** The bridge's clock (core's `now`). */
  now?: () => number;
  /** LISTING_UNFURL_DOMAINS: links there that are listings unfurl as Work Objects (empty: any link Slack sends). */
  unfurlDomains?: string[];
  store: StateStore;
  log: Logger;
}

/**
 * `requestListener` is there in HTTP mode (POST /slack/events; the install pages in OAuth mode),
 * absent in Socket Mode with one token; `start` learns the bot's identity (one token) and in Socket
 * Mode also connects.
 */
export interface SlackRuntime extends SurfaceRuntime {
  /** The bot's workspace and user, once started (one token; undefined in OAuth mode). */
  identity(): BotIdentity | undefined;
}

/** Where the surface's workspaces come from: one token, or the installations (OAuth). */
interface Workspaces {
  single?: SingleWorkspace;
  oauth?: OAuthWorkspaces;
  clients: TeamClients;
  /**
   * The token's own workspace and bot user (auth.test), for a call whose request names none. OAuth
   * mode has none ('' and undefined): every request carries its own (body, or Bolt's context).
   */
  team: () => string;
  botUserId: () => string | undefined;
}

function workspaces(opts: SlackSurfaceOptions, log: Logger): Workspaces {
  if (opts.oauth) {
    const oauth = oauthWorkspaces({ ...opts.oauth, store: opts.store, apiUrl: opts.apiUrl, log });
    return { oauth, clients: oauth.clients, team: () => '', botUserId: () => undefined };
  }
  if (!opts.botToken) throw new Error('Slack needs SLACK_BOT_TOKEN, or the OAuth variables (SLACK_CLIENT_ID ...)');
  const client = createWebClient(opts.botToken, opts.apiUrl, log);
  const single = new SingleWorkspace(client, opts.botToken);
  return {
    single,
    clients: singleWorkspaceClients(client, opts.botToken),
    team: () => single.known?.team ?? '',
    botUserId: () => single.known?.botUserId,
  };
}

function buildPort(
  opts: SlackSurfaceOptions,
  ws: Workspaces,
  log: Logger,
): { port: SlackPort; threads: AssistantThreads } {
  const assistant: AssistantThreads = new AssistantThreads({ gateway: () => port.gateway, log, team: ws.team });
  const port = new SlackPort({
    clients: ws.clients,
    store: opts.store,
    log,
    team: ws.team,
    assistant,
    botUserId: ws.botUserId,
    ...(opts.distribution ? { distribution: opts.distribution } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  return { port, threads: assistant };
}

/** Every listener: App Home, the assistant and agent panes, commands/buttons/forms/messages, leaving. */
function registerAll(
  app: App,
  { port, threads }: { port: SlackPort; threads: AssistantThreads },
  opts: SlackSurfaceOptions,
  ws: Workspaces,
  core: () => BridgeCore | undefined,
  log: Logger,
): void {
  app.error(async (err) => {
    log.error({ err }, 'slack: bolt error');
  });
  const users = port.users;
  registerHome({ app, port, store: opts.store, users, log, adminUsers: opts.adminUsers, core });
  const assistantDeps = { app, port, threads, store: opts.store, log, core, team: ws.team };
  // The assistant pane (assistant_view) and the agent experience (agent_view): both served.
  const assistant = registerAssistant(assistantDeps);
  registerAgent(assistantDeps);
  registerUnfurls({ app, port, store: opts.store, log, core, team: ws.team, domains: opts.unfurlDomains ?? [] });
  registerListeners({
    assistant,
    app,
    port,
    users,
    log,
    adminUsers: opts.adminUsers,
    core,
    team: ws.team,
    botUserId: ws.botUserId,
  });
  if (ws.oauth)
    registerLeaving({
      app,
      installations: ws.oauth.installations,
      store: opts.store,
      clients: ws.clients,
      forgetCached: (team) => port.forgetWorkspace(team),
      log,
      core,
    });
}

function runtimeOf(
  bolt: BoltApp,
  port: SlackPort,
  ws: Workspaces,
  opts: SlackSurfaceOptions,
  log: Logger,
  attach: (c: BridgeCore) => void,
): SlackRuntime {
  const keeper: SocketKeeper | undefined = bolt.socket ? keepSocketConnected(bolt.socket, log) : undefined;
  let ready = false;
  const runtime: SlackRuntime = {
    surface: port,
    attach,
    async start() {
      await ws.single?.identify();
      ws.oauth?.start();
      if (opts.appToken) await bolt.app.start();
      ready = true;
      const mode = opts.appToken ? 'socket' : 'http';
      log.info({ team: ws.single?.known?.team, mode, oauth: Boolean(ws.oauth) }, 'slack surface ready');
    },
    async stop() {
      ready = false;
      keeper?.stop();
      ws.oauth?.stop();
      port.close();
      if (opts.appToken) await bolt.app.stop().catch((err: unknown) => log.warn({ err }, 'slack: stop failed'));
    },
    // In Socket Mode nothing reaches the bridge while the socket is down: not ready then.
    isReady: () => ready && (!keeper || keeper.connected()),
    identity: () => ws.single?.known,
  };
  if (bolt.requestListener) runtime.requestListener = bolt.requestListener;
  return runtime;
}

export function createSlackSurface(opts: SlackSurfaceOptions): SlackRuntime {
  const log = opts.log.child({ surface: 'slack' });
  const ws = workspaces(opts, log);
  let core: BridgeCore | undefined;
  const built = buildPort(opts, ws, log);
  const port = built.port;
  const bolt = buildBoltApp({
    signingSecret: opts.signingSecret,
    appToken: opts.appToken,
    apiUrl: opts.apiUrl,
    log,
    ...(ws.single ? { authorize: ws.single.authorize } : {}),
    ...(ws.oauth ? { oauth: ws.oauth.receiverOptions((inst) => welcomeInstaller(port, inst)) } : {}),
  });
  registerAll(bolt.app, built, opts, ws, () => core, log);
  return runtimeOf(bolt, port, ws, opts, log, (c) => {
    core = c;
  });
}
