/**
 * No secret in any log line after network failures of every kind, on both platforms. A proxy in
 * front of the fake Slack Web API and the fake Discord REST API resets connections, answers 500 and
 * hangs (the client's timeout fires); the app logs at trace into an array; then no log line holds the
 * Slack bot token, the signing secret, the Discord token, any interaction token, or a chatbot key.
 */
import { ask, startDiscordE2E } from '../../support/discord-e2e';
import { startFaultProxy } from '../../support/fault-proxy';
import { useStarted } from '../../support/server-setup';
import { SIGNING_SECRET, startSlackE2E } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';

const SLACK_TOKEN = 'xoxb-SECRET-1122334455-ffeeddccbbaa';
const DISCORD_TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.SECRET.discord-token-abcdefghijklmnopqrstuvwxyz';

function leaks(lines: string[], secrets: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [name, secret] of Object.entries(secrets)) {
    const line = lines.find((l) => l.includes(secret));
    if (line) out.push(`${name}: ${line.slice(0, 400)}`);
  }
  return out;
}

describe('Slack: connection reset, timeout and 500 from the Web API leak no secret into the logs', () => {
  const lines: string[] = [];
  // The app reaches the fake Slack through the proxy.
  const x = useStarted(async () => {
    const proxy = await startFaultProxy();
    const e = await startSlackE2E({
      fake: { botToken: SLACK_TOKEN },
      logLines: lines,
      apiUrl: (fake) => {
        proxy.setTarget(new URL(fake.apiUrl).origin);
        return `${proxy.url}/api/`;
      },
    });
    return {
      e,
      proxy,
      async close() {
        await e.close();
        await proxy.close();
      },
    };
  });

  test('every failure kind, then a scan of every log line', async () => {
    const { e, proxy } = x;
    proxy.arm('reset', /chat\.postMessage/, 3);
    await e.driver.command('/ask', 'Homes in Austin?', { user: 'U0USER1', channel: 'C0NETRESET' });
    proxy.arm('500', /chat\.postEphemeral/, 3);
    await e.driver.command('/ask', '', { user: 'U0USER1', channel: 'C0NET500' });
    proxy.arm('hang', /chat\.postEphemeral/, 1);
    await e.driver.command('/ask', '', { user: 'U0USER1', channel: 'C0NETHANG' });
    const hit = await waitFor(() => proxy.faulted.length >= 7 && proxy.faulted, 'the faults to be hit', 30_000);
    expect(new Set(hit.map((f) => f.fault))).toEqual(new Set(['reset', '500', 'hang']));
    // After the faults, Slack works again: a barrier answered means the failures were handled and logged.
    await e.driver.command('/ask', '', { user: 'U0USER1', channel: 'C0NETAFTER' });
    const after = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === 'C0NETAFTER'),
      'Slack working again',
      40_000,
    );
    expect(after.text).toMatch(/\/ask/);
    await e.app.bridge.conversations.idle();

    const all = lines.join('');
    expect(all).toMatch(/"level":(40|50)/);
    expect(all).toMatch(/ECONNRESET|socket hang up|internal_error|500|timeout/i);
    expect(
      leaks(lines, {
        SLACK_BOT_TOKEN: SLACK_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        CHATBOT_SECRET_KEY: e.service.credentials.secretKey,
        CHATBOT_SESSION_KEY: e.service.credentials.sessionKey,
        CHATBOT_API_KEY: e.service.credentials.apiKey,
      }),
    ).toEqual([]);
    expect(all).not.toMatch(/xoxb-/);
  }, 90_000);
});

describe('Discord: connection reset, timeout and 500 from REST leak no secret into the logs', () => {
  const lines: string[] = [];
  // The app reaches the fake Discord REST API through the proxy.
  const x = useStarted(async () => {
    const proxy = await startFaultProxy();
    const e = await startDiscordE2E({
      fake: { token: DISCORD_TOKEN },
      logLines: lines,
      apiUrl: (fake) => {
        proxy.setTarget(new URL(fake.apiUrl).origin);
        return `${proxy.url}/api`;
      },
    });
    return {
      e,
      proxy,
      async close() {
        await e.close();
        await proxy.close();
      },
    };
  });

  test('every failure kind, then a scan of every log line', async () => {
    const { e, proxy } = x;
    // Interaction callbacks and follow-ups (whose URLs hold the interaction token), channel messages.
    proxy.arm('500', /\/webhooks\//, 6);
    proxy.arm('reset', /\/channels\/\d+\/messages/, 6);
    proxy.arm('hang', /\/threads/, 1);
    await ask(e, 'Homes in Denver?').catch(() => undefined);
    await ask(e, 'Homes in Seattle?').catch(() => undefined);
    const hit = await waitFor(() => proxy.faulted.length >= 4 && proxy.faulted, 'the faults to be hit', 60_000);
    expect(hit.map((f) => f.fault)).toContain('reset');
    await e.app.bridge.conversations.idle();
    // The failures were logged (as warnings or errors) before the lines are scanned.
    const all = await waitFor(() => {
      const text = lines.join('');
      return /"level":(40|50)/.test(text) && text;
    }, 'a warning or error in the log');
    expect(all).toMatch(/"level":(40|50)/);
    const secrets: Record<string, string> = {
      DISCORD_TOKEN,
      CHATBOT_SECRET_KEY: e.service.credentials.secretKey,
      CHATBOT_SESSION_KEY: e.service.credentials.sessionKey,
      CHATBOT_API_KEY: e.service.credentials.apiKey,
    };
    for (const rec of e.fake.interactions.values()) secrets[`interaction token ${rec.id}`] = rec.token;
    expect(Object.keys(secrets).length).toBeGreaterThan(4);
    expect(leaks(lines, secrets)).toEqual([]);
  }, 120_000);
});
