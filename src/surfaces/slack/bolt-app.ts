/**
 * The Bolt app of the Slack surface and the receiver that feeds it: HTTP (Bolt's HTTPReceiver, which
 * verifies signatures; a gate in front refuses malformed signed bodies with 400) or Socket Mode; in
 * either, with one bot token (authorize: SingleWorkspace) or by OAuth (Bolt's InstallProvider serves
 * the install pages and its authorize resolves every request to its workspace's installation).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { App, type Authorize, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import { ACTION_PREFIX, VIEW_PREFIX } from './blocks';
import { guardRequestListener } from './guard';
import { SLACK_COMMANDS } from './listeners';
import type { installFlowOptions } from './oauth/install-flow';
import { INSTALL_PATH, REDIRECT_PATH } from './oauth/scopes';
import { SLACK_RETRY_POLICY, slackLogger } from './web';

export interface BoltAppOptions {
  signingSecret?: string;
  appToken?: string;
  apiUrl?: string;
  /** One bot token: its authorize. */
  authorize?: Authorize<boolean>;
  /** OAuth mode: Bolt's installer options (install pages, installation store). */
  oauth?: ReturnType<typeof installFlowOptions>;
  log: Logger;
}

export interface BoltApp {
  app: App;
  /** Socket Mode's receiver (start/stop connect it). */
  socket?: SocketModeReceiver;
  /** What the app's HTTP server hands everything but /healthz to (absent: Socket Mode with one token). */
  requestListener?: RequestListener;
}

function httpReceiver(o: BoltAppOptions, signingSecret: string): HTTPReceiver {
  return new HTTPReceiver({
    signingSecret,
    endpoints: '/slack/events',
    logger: slackLogger(o.log),
    processBeforeResponse: false,
    // Slack retries what is not answered 2xx; a listener error after ack is ours to log, not Slack's.
    processEventErrorHandler: async ({ error, response }) => {
      o.log.error({ err: error }, 'slack: unhandled listener error');
      return !response.headersSent;
    },
    ...(o.oauth ?? {}),
  });
}

/** GET /slack/install and /slack/oauth_redirect to Bolt's installer, the rest to `rest` (or 404). */
function withInstallPages(installer: RequestListener, rest?: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && (path === INSTALL_PATH || path === REDIRECT_PATH)) return installer(req, res);
    if (rest) return rest(req, res);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: false, error: 'not_found' }));
  };
}

export function buildBoltApp(o: BoltAppOptions): BoltApp {
  const logger = slackLogger(o.log);
  const clientOptions = { slackApiUrl: o.apiUrl, retryConfig: SLACK_RETRY_POLICY, rejectRateLimitedCalls: true };
  const common = { logger, logLevel: LogLevel.WARN, clientOptions };
  if (o.appToken) {
    const socket = new SocketModeReceiver({
      appToken: o.appToken,
      logger,
      logLevel: LogLevel.WARN,
      autoReconnectEnabled: false,
      installerOptions: { clientOptions },
    });
    if (!o.oauth) return { app: new App({ receiver: socket, authorize: o.authorize, ...common }), socket };
    // Socket Mode by OAuth: the install pages are still served by the app's HTTP server, through an
    // HTTPReceiver used for its installer only; its authorize resolves the socket's requests.
    const pages = httpReceiver(o, o.signingSecret ?? '');
    const installer = pages.installer;
    if (!installer) throw new Error('slack: Bolt made no installer from the OAuth options');
    const authorize: Authorize<boolean> = (source) => installer.authorize(source as never);
    const app = new App({ receiver: socket, authorize, ...common });
    return { app, socket, requestListener: withInstallPages(pages.requestListener) };
  }
  if (!o.signingSecret)
    throw new Error('Slack HTTP mode needs SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN for Socket Mode)');
  const receiver = httpReceiver(o, o.signingSecret);
  // With OAuth options the receiver holds Bolt's installer, whose authorize the app then uses.
  const app = new App({ receiver, ...(o.oauth ? {} : { authorize: o.authorize }), ...common });
  const guarded = guardRequestListener(receiver.requestListener, {
    signingSecret: o.signingSecret,
    rules: { commands: SLACK_COMMANDS, actionPrefix: ACTION_PREFIX, viewPrefix: VIEW_PREFIX },
    log: o.log,
  });
  return { app, requestListener: o.oauth ? withInstallPages(receiver.requestListener, guarded) : guarded };
}
