/**
 * The process: read the configuration, start the app (Slack and/or Discord when configured, the
 * terminal shell when neither is and a terminal or piped input is attached), stop cleanly on SIGTERM.
 */
import { fstatSync } from 'fs';
import { ConfigError, loadConfig, type Config } from './deployment/config';
import { redactConfig } from './deployment/config-redact';
import { configSecrets, createLogger } from './deployment/app-log';
import { startApp, type AppHandle } from './app';
import { SecretScrubber } from './deployment/log-safety';
import type { SurfaceRuntime } from './surfaces/runtime';
import { ShellSurface, SHELL_HANDOFF_CHANNEL, SHELL_WORKSPACE } from './surfaces/shell/shell-surface';
import { Shell } from './surfaces/shell/shell';

const HOW_TO_CONFIGURE = `chatbot-bridge: no chat surface is configured and no terminal is attached, so there is nothing to run.
  - Slack:   set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (HTTP mode, events at /slack/events on PORT),
             or SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode).
  - Discord: set DISCORD_TOKEN and DISCORD_APPLICATION_ID (and DISCORD_GUILD_ID to register commands in one guild).
  - Terminal: run \`npm start\` in a terminal (or pipe commands into it) for the shell.
See .env.example and README.md.`;

/**
 * What main.ts writes itself (configuration problems, a failed start) goes through the log's scrubber:
 * the configured secrets once the configuration is read, token shapes always. Errors once the app runs
 * go to its log (stderr, or the shell's log file), never straight to the console.
 */
let scrubber = new SecretScrubber();
let appLog: AppHandle['log'] | undefined;

function printError(text: string): void {
  process.stderr.write(`${scrubber.text(text)}\n`);
}

/** Stdin we can read lines from: a terminal, a pipe or a file (not /dev/null, not closed). */
function stdinHasInput(): boolean {
  if (process.stdin.isTTY) return true;
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}

function shellRuntime(
  interactive: boolean,
  getShell: () => Shell | undefined,
): { runtime: SurfaceRuntime; surface: ShellSurface } {
  const surface = new ShellSurface({ output: process.stdout, interactive, ...Shell.promptHooks(getShell) });
  let ready = false;
  return {
    surface,
    runtime: {
      surface,
      attach: () => undefined,
      start: async () => {
        ready = true;
      },
      stop: async () => {
        surface.close();
      },
      isReady: () => ready,
    },
  };
}

/** Resolves with the number of lines the shell handled. */
async function runShell(config: Config): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  let shell: Shell | undefined;
  const { runtime, surface } = shellRuntime(interactive, () => shell);
  // The terminal is the shell's: logs go to a file.
  const log = createLogger(config.logLevel, './data/bridge.log');
  const app = await startApp(config, {
    surfaces: [runtime],
    handoff: { shell: { surface: 'shell', workspace: SHELL_WORKSPACE, channel: SHELL_HANDOFF_CHANNEL } },
    http: false,
    localServiceDb: config.serviceDb,
    localFragmentDelayMs: interactive ? 25 : 0,
    log,
  });
  const service = app.localService
    ? `the local chatbot service at ${app.localService.url} (chatbot "${app.localService.chatbotId}")`
    : config.chatbot.apiUrl;
  surface.print(surface.colors.dim(`Connected to ${service}. Logs: ./data/bridge.log`));
  shell = new Shell({
    core: app.bridge,
    surface,
    input: process.stdin,
    output: process.stdout,
    interactive,
    idle: () => app.bridge.conversations.idle(),
  });
  appLog = app.log;
  installSignals(app);
  const handled = await shell.run();
  await app.close(5000);
  return handled;
}

function installSignals(app: AppHandle): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping');
    const hard = setTimeout(() => process.exit(1), 9500);
    hard.unref();
    app
      .close(8000)
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      printError(err.message);
      process.exit(1);
    }
    throw err;
  }
  scrubber = configSecrets(config);
  if (!config.slack && !config.discord) {
    if (!stdinHasInput()) {
      printError(HOW_TO_CONFIGURE);
      process.exit(1);
    }
    const handled = await runShell(config);
    // Piped input that was empty is "no terminal" too: say how to configure a surface.
    if (handled === 0 && !process.stdin.isTTY) {
      printError(HOW_TO_CONFIGURE);
      process.exit(1);
    }
    process.exit(0);
  }
  const app = await startApp(config, { localServiceDb: config.serviceDb });
  appLog = app.log;
  app.log.info({ config: redactConfig(config) }, 'configuration');
  installSignals(app);
}

process.on('unhandledRejection', (reason) => {
  // A stray rejection must not take the bridge down; it is logged where logs go, scrubbed.
  if (appLog) appLog.error({ err: reason }, 'unhandled rejection');
  else printError(`unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}`);
});

main().catch((err: unknown) => {
  if (appLog) appLog.fatal({ err }, 'chatbot-bridge failed');
  printError(`chatbot-bridge failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
