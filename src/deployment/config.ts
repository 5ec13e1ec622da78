/**
 * The environment, read once: dotenv, then ONE zod schema over every variable of design.md's
 * configuration table. A bad environment stops start-up with one message naming every bad variable.
 */
import dotenv from 'dotenv';
import { z } from 'zod';
import type { OfficeConfig } from '../core/context';
import type { MailConfig } from '../mail/mailer';
import { officeConfig, officeSchemas } from './office-config';
import { DEFAULT_LEASE_TTL_MS } from '../core/leases';
import { instanceId } from '../state/instance-id';
import { bool, httpUrl, hostList, list, opt, seconds, snowflake, text } from './config-values';
import { parseStateUrl, stateUrlProblem } from '../state/state-url';
import { encryptionKey, slackOAuthProblems } from './oauth-config';
import { defaultDistribution, SLACK_DISTRIBUTIONS, type SlackDistribution } from '../surfaces/slack/distribution';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type StateConfig = { kind: 'sqlite'; path: string } | { kind: 'redis'; url: string };

export interface SlackConfig {
  /** The single-workspace app; absent in OAuth mode (each workspace's token is in the store). */
  botToken?: string;
  /** OAuth mode ("Add to Slack"): SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET, no bot token. */
  oauth?: SlackOAuthConfig;
  /** HTTP mode (events at /slack/events). */
  signingSecret?: string;
  /** Socket Mode when set. */
  appToken?: string;
  mode: 'http' | 'socket';
  apiUrl?: string;
  handoffChannel?: string;
  adminUsers: string[];
  /** SLACK_DISTRIBUTION: which of Slack's history limits apply (OAuth mode defaults to distributed). */
  distribution: SlackDistribution;
  /** LISTING_UNFURL_DOMAINS: the manifest's unfurl_domains, whose links are looked up as listings (empty: any). */
  unfurlDomains: string[];
}

export interface SlackOAuthConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
}

/** STATE_ENCRYPTION_KEY (and _PREVIOUS while rotating): base64 of 32 bytes, checked here. */
export interface EncryptionConfig {
  key: string;
  previousKey?: string;
}

export interface DiscordConfig {
  token: string;
  applicationId: string;
  guildId?: string;
  apiUrl?: string;
  handoffChannel?: string;
  adminRoles: string[];
}

export interface Config {
  chatbot: {
    /**
     * Unset: main.ts starts the local chatbot service in-process (`embedded`). With Slack or Discord
     * configured that must be asked for (CHATBOT_API_URL=embedded): a forgotten URL stops start-up.
     */
    apiUrl?: string;
    /** The embedded (demo) chatbot service answers: CHATBOT_API_URL=embedded, or no platform configured. */
    embedded: boolean;
    /** Defaults to apiUrl. */
    v1ApiUrl?: string;
    secretKey?: string;
    sessionKey?: string;
    apiKey?: string;
    chatbotId: string;
  };
  /** Present only when Slack is configured. */
  slack?: SlackConfig;
  /** Present only when Discord is configured. */
  discord?: DiscordConfig;
  /** Secrets kept in the state store are sealed with it (required in Slack OAuth mode). */
  encryption?: EncryptionConfig;
  stateUrl: string;
  state: StateConfig;
  /** REDIS_TLS_VERIFY: check the TLS certificate of a rediss:// STATE_URL (false: accept self-signed ones). */
  redisTlsVerify: boolean;
  port: number;
  answerIdleTimeoutMs: number;
  handoffClaimTimeoutMs: number;
  /** A waiting handoff ticket gets a reminder in its thread this often (at most 3). */
  handoffRemindMs: number;
  handoffOnNoAnswer: boolean;
  /** Conversations, transcripts and tickets expire after this many days without activity. */
  retentionDays: number;
  /** Commands and button presses one user may make per minute (USER_RATE_LIMIT); 0 turns the limit off. */
  userRateLimit: number;
  logLevel: LogLevel;
  /** INSTANCE_ID, else a random id + pid (distinct per process even on one host; not the host name). */
  instanceId: string;
  /**
   * INSTANCE_LEASE_S: how long an instance's hold on an answer or a thread lasts without renewal; a
   * dead instance's work is taken over within about this plus a third (core/leases.ts).
   */
  leaseTtlMs: number;
  /** SQLite file of the in-process local chatbot service (only used when CHATBOT_API_URL is unset). */
  serviceDb: string;
  /** OpenAI-compatible backend of the in-process local chatbot service; its built-in answerer when absent. */
  localLlm?: { baseUrl: string; apiKey?: string; model?: string };
  /** Office hours, response targets, assignment, the day's leads (office-config.ts). */
  office: OfficeConfig;
  /** Present only when SMTP_URL is set: no e-mail otherwise. */
  mail?: MailConfig;
  /** LINK_HOSTS: hosts whose links the chatbot's answers may show under a label (besides its listings'). */
  linkHosts: string[];
  /** Crash tests' hooks (BRIDGE_TEST_PAUSE_BEFORE_RELAY / _NOTICES), handed to core; never set in production. */
  testPauses?: { beforeRelay: boolean; beforeNotices: boolean };
}

export interface ConfigProblem {
  variable: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// Blank values in .env files mean "unset".
const envObject = z.object({
  CHATBOT_API_URL: opt(
    z.union(
      [
        z
          .string()
          .regex(/^embedded$/i)
          .transform(() => 'embedded' as const),
        httpUrl,
      ],
      {
        errorMap: () => ({
          message:
            'must be an http(s) URL like https://chatbot.example.com, or "embedded" for the built-in demo service',
        }),
      },
    ),
  ),
  CHATBOT_V1_API_URL: opt(httpUrl),
  CHATBOT_SECRET_KEY: opt(text),
  CHATBOT_SESSION_KEY: opt(text),
  CHATBOT_API_KEY: opt(text),
  CHATBOT_ID: opt(text),
  SLACK_BOT_TOKEN: opt(text),
  SLACK_SIGNING_SECRET: opt(text),
  SLACK_APP_TOKEN: opt(z.string().startsWith('xapp-', 'must be a Slack app-level token starting with xapp-')),
  SLACK_API_URL: opt(httpUrl),
  SLACK_HANDOFF_CHANNEL: opt(text),
  SLACK_ADMIN_USERS: opt(list),
  LISTING_UNFURL_DOMAINS: opt(hostList),
  SLACK_DISTRIBUTION: opt(
    z
      .string()
      .refine((v) => (SLACK_DISTRIBUTIONS as readonly string[]).includes(v.toLowerCase()), {
        message: `must be one of ${SLACK_DISTRIBUTIONS.join(', ')}: internal (built for your own workspace), marketplace (approved for the Slack Marketplace) or distributed (installed by other workspaces outside the Marketplace: history reads once a minute, 15 messages)`,
      })
      .transform((v) => v.toLowerCase() as SlackDistribution),
  ),
  // Slack OAuth mode ("Add to Slack", many workspaces): see slackOAuthProblems.
  SLACK_CLIENT_ID: opt(text),
  SLACK_CLIENT_SECRET: opt(text),
  SLACK_STATE_SECRET: opt(text),
  STATE_ENCRYPTION_KEY: opt(encryptionKey('STATE_ENCRYPTION_KEY')),
  STATE_ENCRYPTION_KEY_PREVIOUS: opt(encryptionKey('STATE_ENCRYPTION_KEY_PREVIOUS')),
  DISCORD_TOKEN: opt(text),
  DISCORD_APPLICATION_ID: opt(snowflake),
  DISCORD_GUILD_ID: opt(snowflake),
  DISCORD_API_URL: opt(httpUrl),
  DISCORD_HANDOFF_CHANNEL: opt(text),
  DISCORD_ADMIN_ROLES: opt(list),
  STATE_URL: opt(
    z.string().superRefine((v, ctx) => {
      const message = stateUrlProblem(v);
      if (message) ctx.addIssue({ code: z.ZodIssueCode.custom, message });
    }),
  ),
  REDIS_TLS_VERIFY: opt(
    z.string().refine((v) => /^(true|false|1|0|yes|no|on|off)$/i.test(v), {
      message: 'must be true or false (false turns off TLS certificate verification of a rediss:// STATE_URL)',
    }),
  ),
  PORT: opt(
    z
      .string()
      .refine((v) => /^\d+$/.test(v) && Number(v) <= 65535, { message: 'must be a port number from 0 to 65535' })
      .transform(Number),
  ),
  ANSWER_IDLE_TIMEOUT_S: opt(seconds),
  HANDOFF_CLAIM_TIMEOUT_S: opt(seconds),
  HANDOFF_REMIND_S: opt(seconds),
  HANDOFF_ON_NO_ANSWER: opt(bool),
  RETENTION_DAYS: opt(
    z
      .string()
      .refine((v) => /^\d+$/.test(v) && Number(v) >= 1, {
        message: 'must be a whole number of days, at least 1 (default 90)',
      })
      .transform(Number),
  ),
  USER_RATE_LIMIT: opt(
    z
      .string()
      .refine((v) => /^\d+$/.test(v), {
        message: 'must be a whole number of commands and button presses per minute per user, 0 for none (default 30)',
      })
      .transform(Number),
  ),
  LOG_LEVEL: opt(
    z
      .string()
      .refine((v) => (LOG_LEVELS as readonly string[]).includes(v.toLowerCase()), {
        message: `must be one of ${LOG_LEVELS.join(', ')}`,
      })
      .transform((v) => v.toLowerCase() as LogLevel),
  ),
  INSTANCE_ID: opt(text),
  INSTANCE_LEASE_S: opt(
    z
      .string()
      .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) >= 1 && Number(v) <= 60, {
        message:
          "must be a number of seconds from 1 to 60 (default 6): how long a dead instance's answers wait before another instance takes them over",
      })
      .transform((v) => Math.round(Number(v) * 1000)),
  ),
  SERVICE_DB: opt(text),
  LLM_BASE_URL: opt(httpUrl),
  LLM_API_KEY: opt(text),
  LLM_MODEL: opt(text),
  HANDOFF_HOURS: opt(officeSchemas.HANDOFF_HOURS),
  HANDOFF_TIMEZONE: opt(officeSchemas.HANDOFF_TIMEZONE),
  HANDOFF_EMAIL: opt(officeSchemas.HANDOFF_EMAIL),
  SMTP_URL: opt(officeSchemas.SMTP_URL),
  MAIL_FROM: opt(officeSchemas.MAIL_FROM),
  HANDOFF_FIRST_REPLY_S: opt(seconds),
  HANDOFF_ESCALATE: opt(officeSchemas.HANDOFF_ESCALATE),
  HANDOFF_ASSIGN: opt(officeSchemas.HANDOFF_ASSIGN),
  HANDOFF_OFFER_S: opt(seconds),
  LEADS_DIGEST_HOUR: opt(officeSchemas.LEADS_DIGEST_HOUR),
  LINK_HOSTS: opt(hostList),
  BRIDGE_TEST_PAUSE_BEFORE_RELAY: opt(bool),
  BRIDGE_TEST_PAUSE_BEFORE_NOTICES: opt(bool),
});

const envSchema = envObject
  .superRefine((e, ctx) => {
    const problem = (variable: string, message: string) =>
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [variable], message });
    if (e.SLACK_BOT_TOKEN && !e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
      problem(
        'SLACK_BOT_TOKEN',
        'is set but neither SLACK_SIGNING_SECRET (HTTP mode) nor SLACK_APP_TOKEN (Socket Mode) is: set one of them, or unset SLACK_BOT_TOKEN to turn Slack off',
      );
    }
    slackOAuthProblems(e, problem);
    if (!e.SLACK_BOT_TOKEN && !e.SLACK_CLIENT_ID) {
      for (const v of ['SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN'] as const) {
        if (e[v])
          problem(v, 'is set but SLACK_BOT_TOKEN is not: set SLACK_BOT_TOKEN too, or unset it to turn Slack off');
      }
    }
    if (e.DISCORD_TOKEN && !e.DISCORD_APPLICATION_ID) {
      problem(
        'DISCORD_TOKEN',
        'is set but DISCORD_APPLICATION_ID is not: set DISCORD_APPLICATION_ID too, or unset DISCORD_TOKEN to turn Discord off',
      );
    }
    if ((e.SLACK_BOT_TOKEN || e.SLACK_CLIENT_ID || e.DISCORD_TOKEN) && !e.CHATBOT_API_URL) {
      problem(
        'CHATBOT_API_URL',
        'is not set: with Slack or Discord configured the bridge needs your chatbot service URL (e.g. https://chatbot.example.com); set CHATBOT_API_URL=embedded to answer from the built-in demo service on purpose',
      );
    }
    if (e.CHATBOT_V1_API_URL && e.CHATBOT_API_URL === 'embedded') {
      problem(
        'CHATBOT_V1_API_URL',
        'is set but CHATBOT_API_URL=embedded: the embedded service serves both APIs; unset CHATBOT_V1_API_URL',
      );
    }
    if (!e.DISCORD_TOKEN && e.DISCORD_APPLICATION_ID) {
      problem(
        'DISCORD_APPLICATION_ID',
        'is set but DISCORD_TOKEN is not: set DISCORD_TOKEN too, or unset it to turn Discord off',
      );
    }
  })
  .transform((e): Config => {
    const stateUrl = e.STATE_URL ?? 'sqlite:./data/bridge.db';
    const apiUrl = e.CHATBOT_API_URL === 'embedded' ? undefined : e.CHATBOT_API_URL;
    const config: Config = {
      chatbot: {
        apiUrl: apiUrl,
        embedded: apiUrl === undefined,
        v1ApiUrl: e.CHATBOT_V1_API_URL ?? apiUrl,
        secretKey: e.CHATBOT_SECRET_KEY,
        sessionKey: e.CHATBOT_SESSION_KEY,
        apiKey: e.CHATBOT_API_KEY,
        chatbotId: e.CHATBOT_ID ?? 'demo',
      },
      stateUrl,
      state: parseStateUrl(stateUrl) as StateConfig,
      redisTlsVerify: e.REDIS_TLS_VERIFY === undefined || /^(true|1|yes|on)$/i.test(e.REDIS_TLS_VERIFY),
      port: e.PORT ?? 3000,
      answerIdleTimeoutMs: e.ANSWER_IDLE_TIMEOUT_S ?? 30_000,
      handoffClaimTimeoutMs: e.HANDOFF_CLAIM_TIMEOUT_S ?? 600_000,
      handoffRemindMs: e.HANDOFF_REMIND_S ?? 300_000,
      handoffOnNoAnswer: e.HANDOFF_ON_NO_ANSWER ?? false,
      retentionDays: e.RETENTION_DAYS ?? 90,
      userRateLimit: e.USER_RATE_LIMIT ?? 30,
      logLevel: e.LOG_LEVEL ?? 'info',
      instanceId: e.INSTANCE_ID ?? instanceId(),
      leaseTtlMs: e.INSTANCE_LEASE_S ?? DEFAULT_LEASE_TTL_MS,
      serviceDb: e.SERVICE_DB ?? './data/service.db',
      linkHosts: (e.LINK_HOSTS ?? []).map((h) => h.toLowerCase()),
      ...officeConfig(e),
    };
    if (e.BRIDGE_TEST_PAUSE_BEFORE_RELAY || e.BRIDGE_TEST_PAUSE_BEFORE_NOTICES) {
      config.testPauses = {
        beforeRelay: e.BRIDGE_TEST_PAUSE_BEFORE_RELAY ?? false,
        beforeNotices: e.BRIDGE_TEST_PAUSE_BEFORE_NOTICES ?? false,
      };
    }
    if (e.LLM_BASE_URL) config.localLlm = { baseUrl: e.LLM_BASE_URL, apiKey: e.LLM_API_KEY, model: e.LLM_MODEL };
    if (e.STATE_ENCRYPTION_KEY) {
      config.encryption = { key: e.STATE_ENCRYPTION_KEY, previousKey: e.STATE_ENCRYPTION_KEY_PREVIOUS };
    }
    const oauth =
      e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET && e.SLACK_STATE_SECRET && !e.SLACK_BOT_TOKEN
        ? { clientId: e.SLACK_CLIENT_ID, clientSecret: e.SLACK_CLIENT_SECRET, stateSecret: e.SLACK_STATE_SECRET }
        : undefined;
    if (e.SLACK_BOT_TOKEN || oauth) {
      config.slack = {
        botToken: e.SLACK_BOT_TOKEN,
        ...(oauth ? { oauth } : {}),
        signingSecret: e.SLACK_SIGNING_SECRET,
        appToken: e.SLACK_APP_TOKEN,
        mode: e.SLACK_APP_TOKEN ? 'socket' : 'http',
        apiUrl: e.SLACK_API_URL,
        handoffChannel: e.SLACK_HANDOFF_CHANNEL,
        adminUsers: e.SLACK_ADMIN_USERS ?? [],
        distribution: e.SLACK_DISTRIBUTION ?? defaultDistribution(oauth !== undefined),
        unfurlDomains: (e.LISTING_UNFURL_DOMAINS ?? []).map((h) => h.toLowerCase()),
      };
    }
    if (e.DISCORD_TOKEN && e.DISCORD_APPLICATION_ID) {
      config.discord = {
        token: e.DISCORD_TOKEN,
        applicationId: e.DISCORD_APPLICATION_ID,
        guildId: e.DISCORD_GUILD_ID,
        apiUrl: e.DISCORD_API_URL,
        handoffChannel: e.DISCORD_HANDOFF_CHANNEL,
        adminRoles: e.DISCORD_ADMIN_ROLES ?? [],
      };
    }
    return config;
  });

/** Names of every variable the bridge reads (for .env.example checks and docs). */
export const CONFIG_VARIABLES = Object.keys(envObject.shape);

function processEnv(): Record<string, string | undefined> {
  dotenv.config({ quiet: true });
  return process.env;
}

/** Parses the environment (process.env after .env by default). Throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = processEnv()): Config {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  const problems: ConfigProblem[] = result.error.issues.map((i) => ({
    variable: String(i.path[0] ?? 'environment'),
    message: i.message,
  }));
  throw new ConfigError(problems);
}
