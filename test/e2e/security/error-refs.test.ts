/**
 * Nothing internal reaches a user (src/core/user-messages.ts): through signed Slack requests, a
 * record that will not decrypt and the chatbot service failing with its internal words in the body
 * are each told in chat as "Something went wrong (ref xxxx)", and the same ref is in the log beside
 * the detail. A scripted server stands in front of the local chatbot service: the failing call is
 * scripted, every other request passes through.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../../fakes/slack-requests';
import { TenantConnections } from '../../../src/core/tenants/connections';
import { SecretBox, parseEncryptionKey } from '../../../src/state/secret-box';
import { FakeChatbotServer, type Handler, status } from '../../support/fake-chatbot-server';
import { useStarted } from '../../support/server-setup';
import { ADMIN, type SlackE2E, startSlackE2E } from '../../support/slack-e2e';

const KEY = Buffer.alloc(32, 3).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 4).toString('base64');
const INTERNAL = 'pq: password authentication failed for user "chatbot" at 10.0.3.7:5432';
const REF = /Something went wrong \(ref ([0-9a-f]{4})\)/;

describe('Slack e2e: failures are told by reference, never in their own words', () => {
  const front = useStarted(async () => {
    const server = await FakeChatbotServer.start();
    server.fallback(async (req, res) => {
      await passThrough(req, res, undefined as never);
      return true;
    });
    return server;
  });
  const logLines: string[] = [];
  const e = useStarted(async (): Promise<SlackE2E> => {
    const started = await startSlackE2E({
      logLines,
      env: { CHATBOT_API_URL: front.baseUrl, CHATBOT_V1_API_URL: front.baseUrl, STATE_ENCRYPTION_KEY: KEY },
    });
    return started;
  });

  /** Forwards a request to the real local service and streams its answer back. */
  const passThrough: Handler = (req, res) =>
    new Promise<void>((done) => {
      const to = new URL(`http://127.0.0.1:${(e.service.app.server.address() as AddressInfo).port}`);
      const upstream = request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.path + (req.query.size ? `?${req.query}` : ''),
          headers: { ...req.headers, host: to.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          up.on('end', () => done());
          up.on('error', () => done());
        },
      );
      upstream.on('error', () => {
        res.destroy();
        done();
      });
      upstream.end(req.body);
    });

  /** The ephemeral told to `user` in `channel` that carries a ref, and the log lines naming that ref. */
  async function toldByRef(channel: string, user: string): Promise<{ text: string; logged: string }> {
    const told = await waitFor(
      () => e.fake.ephemerals.find((m) => m.channel === channel && m.user === user && REF.test(m.text)),
      'the ref line',
    );
    const ref = REF.exec(told.text)?.[1] ?? '';
    const logged = await waitFor(() => {
      const lines = logLines.filter((l) => l.includes(`"ref":"${ref}"`));
      return lines.length > 0 ? lines.join('\n') : undefined;
    }, `the log line of ref ${ref}`);
    return { text: told.text, logged };
  }

  test('the chatbot service failing (HTTP 500, its internal words in the body): the ref, the words only logged', async () => {
    front.on('POST', '/chat/Chatbot/Edit', status(500, { Success: false, Code: 500, Message: INTERNAL }));
    await e.driver.command('/chatbot', 'set Temperature 1', { user: ADMIN, channel: 'C0REFSVC' });
    const { text, logged } = await toldByRef('C0REFSVC', ADMIN);
    expect(text).not.toContain('10.0.3.7');
    expect(text).not.toContain('pq:');
    expect(text).not.toContain('HTTP 500');
    expect(logged).toContain('password authentication failed');
  });

  test('a connection record that will not decrypt: the ref, the decryption error only logged', async () => {
    // The workspace's connection, sealed with a key this deployment does not hold (a key rotated
    // away without STATE_ENCRYPTION_KEY_PREVIOUS).
    const foreign = new TenantConnections(
      e.app.store,
      new SecretBox(parseEncryptionKey('STATE_ENCRYPTION_KEY', OTHER_KEY)),
      () => Date.now(),
    );
    await foreign.put(
      { surface: 'slack', id: e.fake.team },
      {
        chatbotId: 'elsewhere',
        secretKey: 'sk-elsewhere-000001',
        sessionKey: 'ssk-elsewhere-000001',
        connectedBy: ADMIN,
        connectedAt: Date.now(),
      },
    );
    await e.driver.command('/ask', 'Homes in Austin?', { user: 'U0USER1', channel: 'C0REFDEC' });
    const { text, logged } = await toldByRef('C0REFDEC', 'U0USER1');
    expect(text).not.toMatch(/decrypt|authenticate|cipher|STATE_ENCRYPTION_KEY/i);
    expect(logged).toMatch(/decrypt|authenticate|cipher|key/i);
    await e.app.store.delete(`tenant:connection:slack:${e.fake.team}`);
  });
});
