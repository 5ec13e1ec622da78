/**
 * The Slack surface: a Bolt app that turns Slack's commands, events and interactions into core
 * calls, and a SurfacePort that turns core's messages into Web API calls.
 *
 * HTTP mode (bot token + signing secret): the app's own HTTP server mounts `requestListener` for
 * everything except /healthz; Bolt verifies signatures (bad or older than 5 minutes: 401), a gate in
 * front refuses malformed signed bodies with 400. Socket Mode (app token): `start()` connects.
 */
import { App, HTTPReceiver, LogLevel, SocketModeReceiver, type Authorize } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { BridgeCore } from '../../core/surface';
import type { StateStore } from '../../state/store';
import type { SurfaceRuntime } from '../runtime';
import { registerAgent } from './agent';
import { registerAssistant } from './assistant';
import { AssistantThreads } from './assistant-api';
import type { SlackGateway } from './gateway';
import { ACTION_PREFIX, VIEW_PREFIX } from './blocks';
import { guardRequestListener } from './guard';
import { registerHome } from './home';
import { SLACK_COMMANDS, registerListeners } from './listeners';
import { SlackPort } from './port';
import { createWebClient, SLACK_RETRY_POLICY, slackErrorCode, slackLogger } from './web';

export interface SlackSurfaceOptions {
  botToken: string;
  /** Required in HTTP mode (no appToken). */
  signingSecret?: string;
  /** xapp- token: Socket Mode instead of HTTP. */
  appToken?: string;
  /** Web API base (tests, proxies); Slack's own when unset. */
  apiUrl?: string;
  adminUsers: string[];
  handoffChannel?: string;
  store: StateStore;
  log: Logger;
}

/**
 * `requestListener` is there in HTTP mode (POST /slack/events), absent in Socket Mode; `start` learns
 * the bot's identity (auth.test) and in Socket Mode also connects.
 */
export interface SlackRuntime extends SurfaceRuntime {
  /** The bot's workspace and user, once started. */
  identity(): { team: string; botUserId: string; botId?: string } | undefined;
}

/** Socket Mode reconnect backoff: at once (Slack asked, or a blip), then 1 s doubling to 30 s. */
const RECONNECT_MAX_MS = 30_000;

// Only the bot's own user id is essential; the team also arrives with every request.
const authTestSchema = z.object({
  team_id: z.string().nullish(),
  user_id: z.string(),
  bot_id: z.string().nullish(),
});

export function createSlackSurface(opts: SlackSurfaceOptions): SlackRuntime {
  const log = opts.log.child({ surface: 'slack' });
  const client = createWebClient(opts.botToken, opts.apiUrl, log);
  let who: { team: string; botUserId: string; botId?: string } | undefined;
  let whoPromise: Promise<{ team: string; botUserId: string; botId?: string }> | undefined;
  let core: BridgeCore | undefined;
  let ready = false;

  const identify = (): Promise<{ team: string; botUserId: string; botId?: string }> => {
    whoPromise ??= (async () => {
      try {
        const res = authTestSchema.parse(await client.auth.test());
        who = { team: res.team_id ?? '', botUserId: res.user_id, ...(res.bot_id ? { botId: res.bot_id } : {}) };
        return who;
      } catch (err) {
        whoPromise = undefined;
        throw new Error(
          `Slack auth.test failed (${slackErrorCode(err) ?? (err as Error).message}): check SLACK_BOT_TOKEN`,
        );
      }
    })();
    return whoPromise;
  };

  // Bolt asks per event; the single workspace's identity is learned once.
  const authorize: Authorize<boolean> = async () => {
    const id = await identify();
    return {
      botToken: opts.botToken,
      botUserId: id.botUserId,
      ...(id.botId ? { botId: id.botId } : {}),
      teamId: id.team,
    };
  };

  const assistantThreads: AssistantThreads = new AssistantThreads({
    gateway: (): SlackGateway => port.gateway,
    log,
    team: () => who?.team ?? '',
  });
  const port = new SlackPort({
    client,
    store: opts.store,
    log,
    botToken: opts.botToken,
    team: () => who?.team ?? '',
    assistant: assistantThreads,
    botUserId: () => who?.botUserId,
  });

  const boltLogger = slackLogger(log);
  const clientOptions = {
    slackApiUrl: opts.apiUrl,
    retryConfig: SLACK_RETRY_POLICY,
    rejectRateLimitedCalls: true,
  };

  let receiver: HTTPReceiver | undefined;
  let socket: SocketModeReceiver | undefined;
  let app: App;
  if (opts.appToken) {
    // The SDK's own reconnect gives up for good (an unhandled rejection) when apps.connections.open
    // fails once with an HTTP or network error, leaving the bridge deaf: reconnecting is ours.
    socket = new SocketModeReceiver({
      appToken: opts.appToken,
      logger: boltLogger,
      logLevel: LogLevel.WARN,
      autoReconnectEnabled: false,
      installerOptions: { clientOptions },
    });
    app = new App({ receiver: socket, authorize, logger: boltLogger, logLevel: LogLevel.WARN, clientOptions });
  } else {
    if (!opts.signingSecret)
      throw new Error('Slack HTTP mode needs SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)');
    receiver = new HTTPReceiver({
      signingSecret: opts.signingSecret,
      endpoints: '/slack/events',
      logger: boltLogger,
      processBeforeResponse: false,
      // Slack retries what is not answered 2xx; a listener error after ack is ours to log, not Slack's.
      processEventErrorHandler: async ({ error, response }) => {
        log.error({ err: error }, 'slack: unhandled listener error');
        return !response.headersSent;
      },
    });
    app = new App({ receiver, authorize, logger: boltLogger, logLevel: LogLevel.WARN, clientOptions });
  }
  let connected = false;
  let stopping = false;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnecting = false;
  const reconnect = (): void => {
    if (!socket || stopping || reconnectTimer || reconnecting) return;
    const sm = socket.client;
    const delay = attempt === 0 ? 0 : Math.min(RECONNECT_MAX_MS, 1_000 * 2 ** (attempt - 1));
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (stopping) return;
      reconnecting = true;
      sm.start().then(
        () => {
          reconnecting = false;
        },
        (err: unknown) => {
          reconnecting = false;
          log.warn(
            { code: slackErrorCode(err) ?? (err as Error).message, attempt },
            'slack: Socket Mode reconnect failed, retrying',
          );
          reconnect();
        },
      );
    }, delay);
  };
  if (socket) {
    socket.client.on('connected', () => {
      connected = true;
      attempt = 0;
    });
    // Emitted when the socket closes (Slack's refresh, a dropped link, a missed pong) or a start fails.
    socket.client.on('disconnected', () => {
      connected = false;
      if (!stopping && !reconnecting) reconnect();
    });
  }

  app.error(async (err) => {
    log.error({ err }, 'slack: bolt error');
  });

  const users = port.users;
  registerHome({ app, port, store: opts.store, users, log, adminUsers: opts.adminUsers, core: () => core });
  const assistantDeps = {
    app,
    port,
    threads: assistantThreads,
    store: opts.store,
    log,
    core: () => core,
    team: () => who?.team ?? '',
  };
  // The assistant pane (assistant_view) and the agent experience (agent_view): both served.
  const assistant = registerAssistant(assistantDeps);
  registerAgent(assistantDeps);
  registerListeners({
    assistant,
    app,
    port,
    client,
    users,
    log,
    adminUsers: opts.adminUsers,
    core: () => core,
    team: () => who?.team ?? '',
    botUserId: () => who?.botUserId,
  });

  const runtime: SlackRuntime = {
    surface: port,
    attach(c) {
      core = c;
    },
    async start() {
      await identify();
      if (opts.appToken) await app.start();
      ready = true;
      log.info({ team: who?.team, mode: opts.appToken ? 'socket' : 'http' }, 'slack surface ready');
    },
    async stop() {
      ready = false;
      stopping = true;
      port.close();
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      if (opts.appToken) await app.stop().catch((err: unknown) => log.warn({ err }, 'slack: stop failed'));
    },
    // In Socket Mode nothing reaches the bridge while the socket is down: not ready then.
    isReady: () => ready && (!socket || connected),
    identity: () => who,
  };
  if (receiver && opts.signingSecret) {
    runtime.requestListener = guardRequestListener(receiver.requestListener, {
      signingSecret: opts.signingSecret,
      rules: { commands: SLACK_COMMANDS, actionPrefix: ACTION_PREFIX, viewPrefix: VIEW_PREFIX },
      log,
    });
  }
  return runtime;
}
