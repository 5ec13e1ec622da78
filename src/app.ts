/**
 * Wiring: config -> store -> service client -> core -> surfaces, and the HTTP server on PORT
 * (Slack events at /slack/events, health at /healthz). main.ts runs it as a process; end-to-end
 * tests run it in-process with their fakes' URLs.
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { Logger } from 'pino';
import type { Config, SlackConfig } from './deployment/config';
import { configSecrets, createLogger } from './deployment/app-log';
import { type SecretScrubber, safeLogger } from './deployment/log-safety';
import { Bridge } from './core/bridge';
import { mailServerLabel, smtpMailer } from './mail/mailer';
import { commandHandlers } from './core/commands';
import type { CoreConfig, HandoffTarget, SurfaceRegistry } from './core/context';
import { CoreMemory } from './core/memory';
import { leaseTimings } from './core/leases';
import { Relay } from './core/relay';
import type { SurfaceName } from './core/surface';
import { startLocalService, type LocalServiceHandle } from './local-service';
import { ChatbotClient } from './service/client';
import { openStore } from './state/open-store';
import type { StateStore } from './state/store';
import { MAKE_KEY_HINT, SecretBox, parseEncryptionKey } from './state/secret-box';
import { createSlackSurface } from './surfaces/slack';
import { resolveApiUrl as resolveSlackApiUrl } from './surfaces/slack/web';
import { createDiscordSurface } from './surfaces/discord';
import type { SurfaceRuntime } from './surfaces/runtime';
import { tenantChatbots } from './tenant-chatbots';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AppOptions {
  /** Extra surfaces (the shell). */
  surfaces?: SurfaceRuntime[];
  /** Handoff channel for the extra surfaces, e.g. the shell's #handoff. */
  handoff?: Partial<Record<SurfaceName, HandoffTarget>>;
  /** Where the in-process local chatbot service keeps its data (default ./data/service.db). */
  localServiceDb?: string;
  /** Pause between the local service's answer fragments, so a person sees the answer stream in. */
  localFragmentDelayMs?: number;
  /** Timeout of each call to the chatbot service, until response headers (client default 15 s). */
  serviceTimeoutMs?: number;
  /** Listen for HTTP (default: yes when Slack or Discord is configured). */
  http?: boolean;
  log?: Logger;
  /** Core's clock (tests move it: e.g. the agent's greeting once per user per day); epoch ms. */
  now?: () => number;
}

export interface AppHandle {
  /** http://127.0.0.1:PORT when the HTTP server runs. */
  url?: string;
  port?: number;
  bridge: Bridge;
  store: StateStore;
  client: ChatbotClient;
  relay: Relay;
  /** The in-process local chatbot service, when CHATBOT_API_URL is unset. */
  localService?: LocalServiceHandle;
  surfaces: SurfaceRuntime[];
  log: Logger;
  instanceId: string;
  /** Finish or mark in-flight answers (within deadlineMs), then stop everything. */
  close(deadlineMs?: number): Promise<void>;
}

function registry(runtimes: SurfaceRuntime[]): SurfaceRegistry {
  return {
    get: (name) => runtimes.find((r) => r.surface.name === name)?.surface,
    all: () => runtimes.map((r) => r.surface),
  };
}

type Cleanups = Array<() => Promise<void>>;
type ChatbotSettings = Config['chatbot'];

/** CHATBOT_API_URL unset: the local chatbot service in-process, and the credentials it made. */
async function startEmbeddedService(
  config: Config,
  opts: AppOptions,
  log: Logger,
  scrubber: SecretScrubber,
  cleanups: Cleanups,
): Promise<{ localService?: LocalServiceHandle; chatbot: ChatbotSettings }> {
  const chatbot = config.chatbot;
  if (chatbot.apiUrl) return { chatbot };
  const service = await startLocalService({
    port: 0,
    host: '127.0.0.1',
    dbPath: opts.localServiceDb ?? config.serviceDb,
    chatbotId: chatbot.chatbotId,
    secretKey: chatbot.secretKey,
    sessionKey: chatbot.sessionKey,
    apiKey: chatbot.apiKey,
    fragmentDelayMs: opts.localFragmentDelayMs,
    llm: config.localLlm,
  });
  cleanups.push(() => service.close());
  scrubber.add(service.credentials.secretKey, service.credentials.sessionKey, service.credentials.apiKey);
  if (config.slack || config.discord) {
    // Only ever on purpose (config.ts refuses a platform without CHATBOT_API_URL): said loudly.
    log.warn(
      { url: service.url },
      'CHATBOT_API_URL=embedded: answering from the embedded demo chatbot service, not a production service',
    );
  } else log.info({ url: service.url }, 'local chatbot service started in-process');
  return {
    localService: service,
    chatbot: {
      ...chatbot,
      apiUrl: service.url,
      v1ApiUrl: service.url,
      secretKey: service.credentials.secretKey,
      sessionKey: service.credentials.sessionKey,
      apiKey: service.credentials.apiKey,
    },
  };
}

/** The state encryption key, or the error that names STATE_ENCRYPTION_KEY and how to make one. */
function secretBox(config: Config): SecretBox {
  if (!config.encryption) {
    throw new Error(
      `STATE_ENCRYPTION_KEY is not set: Slack OAuth mode keeps tokens encrypted with it; ${MAKE_KEY_HINT}`,
    );
  }
  const { key, previousKey } = config.encryption;
  return new SecretBox(
    parseEncryptionKey('STATE_ENCRYPTION_KEY', key),
    previousKey ? parseEncryptionKey('STATE_ENCRYPTION_KEY_PREVIOUS', previousKey) : undefined,
  );
}

async function slackRuntime(config: Config, slack: SlackConfig, store: StateStore, log: Logger, opts: AppOptions) {
  const oauth = slack.oauth
    ? { ...slack.oauth, box: secretBox(config), instanceId: config.instanceId, now: opts.now ?? Date.now }
    : undefined;
  return createSlackSurface({
    botToken: slack.botToken,
    ...(oauth ? { oauth } : {}),
    signingSecret: slack.signingSecret,
    appToken: slack.appToken,
    apiUrl: await resolveSlackApiUrl(slack.apiUrl, slack.botToken ?? '', log),
    adminUsers: slack.adminUsers,
    handoffChannel: slack.handoffChannel,
    distribution: slack.distribution,
    unfurlDomains: slack.unfurlDomains,
    ...(opts.now ? { now: opts.now } : {}),
    store,
    log: log.child({ surface: 'slack' }),
  });
}

/** Slack's and Discord's runtimes (as configured) after the caller's, and each one's handoff channel. */
async function platformSurfaces(config: Config, store: StateStore, log: Logger, opts: AppOptions) {
  const runtimes: SurfaceRuntime[] = [...(opts.surfaces ?? [])];
  const handoff: Partial<Record<SurfaceName, HandoffTarget>> = { ...(opts.handoff ?? {}) };
  if (config.slack) {
    runtimes.push(await slackRuntime(config, config.slack, store, log, opts));
    if (config.slack.handoffChannel) {
      handoff.slack = { surface: 'slack', workspace: '', channel: config.slack.handoffChannel };
    }
  }
  const discord = config.discord;
  if (discord) {
    runtimes.push(
      createDiscordSurface({
        token: discord.token,
        applicationId: discord.applicationId,
        guildId: discord.guildId,
        apiUrl: discord.apiUrl,
        adminRoles: discord.adminRoles,
        handoffChannel: discord.handoffChannel,
        onHandoffGuild: (guild) => {
          if (handoff.discord?.workspace === '') handoff.discord.workspace = guild;
        },
        ...(opts.now ? { now: opts.now } : {}),
        store,
        log: log.child({ surface: 'discord' }),
      }),
    );
    if (discord.handoffChannel) {
      handoff.discord = { surface: 'discord', workspace: discord.guildId ?? '', channel: discord.handoffChannel };
    }
  }
  return { runtimes, handoff };
}

function coreConfigOf(
  config: Config,
  chatbot: ChatbotSettings,
  handoff: Partial<Record<SurfaceName, HandoffTarget>>,
  embedded: boolean,
): CoreConfig {
  return {
    chatbotId: chatbot.chatbotId,
    answerIdleTimeoutMs: config.answerIdleTimeoutMs,
    handoff,
    handoffClaimTimeoutMs: config.handoffClaimTimeoutMs,
    handoffRemindMs: config.handoffRemindMs,
    handoffOnNoAnswer: config.handoffOnNoAnswer,
    linkHosts: config.linkHosts,
    instanceId: config.instanceId,
    embeddedService: embedded,
    retentionMs: config.retentionDays * DAY_MS,
    office: config.office,
    userRateLimit: config.userRateLimit,
    leaseTtlMs: leaseTimings(config.leaseTtlMs).ttlMs,
    ...(config.testPauses ? { testPauses: config.testPauses } : {}),
    ...(config.slack?.oauth ? { manyTenants: ['slack'] as const } : {}),
    ...guestsOf(config),
  };
}

/**
 * Who is a guest on the environment's chatbot (CoreConfig.guestSurfaces): Slack's workspaces in OAuth
 * mode, and every Discord server but the operator's (DISCORD_GUILD_ID, or the handoff channel's).
 */
function guestsOf(config: Config): Pick<CoreConfig, 'guestSurfaces' | 'operatorWorkspaces'> {
  const surfaces: SurfaceName[] = [];
  if (config.slack?.oauth) surfaces.push('slack');
  if (config.discord) surfaces.push('discord');
  return {
    guestSurfaces: surfaces,
    ...(config.discord?.guildId ? { operatorWorkspaces: { discord: config.discord.guildId } } : {}),
  };
}

/** The ticket and leads mailer when SMTP_URL is set; says once at start whether e-mail is on. */
function startMailer(config: Config, log: Logger, cleanups: Cleanups) {
  const mailer = config.mail ? smtpMailer(config.mail) : undefined;
  if (mailer) cleanups.push(async () => mailer.close());
  // The server, never its credentials.
  if (config.mail) log.info({ server: mailServerLabel(config.mail) }, 'e-mail: on');
  else log.info('e-mail: off (SMTP_URL is not set): no ticket or daily leads e-mail is sent');
  return mailer;
}

/** The HTTP server on PORT: /healthz, and everything else to the Slack surface's listener. */
async function startHttpServer(config: Config, runtimes: SurfaceRuntime[], cleanups: Cleanups): Promise<number> {
  const slack = runtimes.find((r) => r.requestListener);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      const ready = runtimes.every((r) => r.isReady());
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ok: ready,
          instance: config.instanceId,
          surfaces: runtimes.map((r) => ({ name: r.surface.name, ready: r.isReady() })),
        }),
      );
      return;
    }
    if (slack?.requestListener) {
      slack.requestListener(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: false, error: 'not_found' }));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolveListen());
  });
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  );
  return (server.address() as AddressInfo).port;
}

export async function startApp(config: Config, opts: AppOptions = {}): Promise<AppHandle> {
  const scrubber = configSecrets(config);
  // Whoever made the logger, every line the app writes goes through the scrubber (any depth).
  const log = safeLogger(opts.log ?? createLogger(config.logLevel), scrubber);
  const instanceId = config.instanceId;
  const cleanups: Cleanups = [];
  try {
    const { localService, chatbot } = await startEmbeddedService(config, opts, log, scrubber, cleanups);
    // RETENTION_DAYS holds for every record by construction: the store caps every time to live.
    const store = await openStore(config.stateUrl, {
      retentionMs: config.retentionDays * DAY_MS,
      tlsVerify: config.redisTlsVerify,
    });
    cleanups.push(() => store.close());
    const client = new ChatbotClient({
      baseUrl: chatbot.apiUrl as string,
      v1BaseUrl: chatbot.v1ApiUrl ?? chatbot.apiUrl,
      secretKey: chatbot.secretKey,
      sessionKey: chatbot.sessionKey,
      apiKey: chatbot.apiKey,
      idleTimeoutMs: config.answerIdleTimeoutMs,
      timeoutMs: opts.serviceTimeoutMs,
    });
    const { runtimes, handoff } = await platformSurfaces(config, store, log, opts);
    const mailer = startMailer(config, log, cleanups);
    // Each surface's gateway owns its budgets: the relay only says what messages should show.
    const now = opts.now ?? Date.now;
    // One lease setting for answers, threads and the sweeps that find a dead instance's work.
    const lease = leaseTimings(config.leaseTtlMs);
    const relay = new Relay({
      store,
      log: log.child({ part: 'relay' }),
      instanceId,
      now,
      options: { leaseTtlMs: lease.ttlMs, leaseRenewMs: lease.renewMs },
    });
    const bridge = new Bridge(
      {
        client,
        store,
        config: coreConfigOf(config, chatbot, handoff, localService !== undefined),
        surfaces: registry(runtimes),
        log: log.child({ part: 'core' }),
        now,
        ...(mailer ? { mailer } : {}),
        memory: new CoreMemory(),
        chatbots: tenantChatbots({
          config,
          chatbot,
          client,
          store,
          scrubber,
          timeoutMs: opts.serviceTimeoutMs,
          now,
          log,
        }),
      },
      { relay, commands: commandHandlers() },
    );
    for (const runtime of runtimes) runtime.attach(bridge);
    const listen = opts.http ?? (config.slack !== undefined || config.discord !== undefined);
    const port = listen ? await startHttpServer(config, runtimes, cleanups) : undefined;
    for (const runtime of runtimes) {
      await runtime.start();
      cleanups.push(() => runtime.stop());
    }
    bridge.start();
    log.info({ instanceId, port, surfaces: runtimes.map((r) => r.surface.name) }, 'chatbot-bridge ready');
    return appHandle(
      { port, bridge, store, client, relay, localService, surfaces: runtimes, log, instanceId },
      cleanups,
    );
  } catch (err) {
    await runCleanups(cleanups, log);
    throw err;
  }
}

function appHandle(parts: Omit<AppHandle, 'url' | 'close'>, cleanups: Cleanups): AppHandle {
  const { bridge, log } = parts;
  let closing: Promise<void> | undefined;
  return {
    ...parts,
    url: parts.port !== undefined ? `http://127.0.0.1:${parts.port}` : undefined,
    close(deadlineMs = 8000) {
      closing ??= (async () => {
        await bridge.stop(deadlineMs).catch((err: unknown) => log.error({ err }, 'bridge stop failed'));
        await runCleanups(cleanups, log);
      })();
      return closing;
    },
  };
}

async function runCleanups(cleanups: Array<() => Promise<void>>, log: Logger): Promise<void> {
  for (const cleanup of cleanups.reverse()) {
    await cleanup().catch((err: unknown) => log.warn({ err }, 'cleanup failed'));
  }
  cleanups.length = 0;
}
