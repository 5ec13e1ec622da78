/**
 * GetSession failing with 5xx or a network error: retried up to 3 times with backoff, then the user
 * is told (with a Retry that works once the service is back). A scripted HTTP server stands in front
 * of the local chatbot service: GetSession fails as scripted, every other request is passed through.
 */
import { request } from 'node:http';
import { FakeChatbotServer, drop, status, type Handler } from '../../support/fake-chatbot-server';
import type { FakeMessage } from '../../../fakes/fake-slack';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { buttonsOf } from '../../support/bridge-process';
import { useStarted } from '../../support/server-setup';
import { useRig } from './rig';

const STATE_URL = 'redis://127.0.0.1:6379/15';
const GET_SESSION = '/chat/Chatbot/GetSession';

describe('reliability: GetSession failing', () => {
  const rig = useRig({ fragmentDelayMs: 2, flushRedis: STATE_URL });
  const front = useStarted(async () => {
    const server = await FakeChatbotServer.start();
    server.fallback(async (req, res) => {
      await passThrough(req, res, undefined as never);
      return true;
    });
    return server;
  });
  let driver: SlackDriver;

  /** Forwards a request to the real local service and streams its answer back. */
  const passThrough: Handler = (req, res) =>
    new Promise<void>((done) => {
      const target = new URL(rig.service.url);
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.path + (req.query.size ? `?${req.query}` : ''),
          headers: { ...req.headers, host: target.host },
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

  beforeAll(async () => {
    driver = rig.driverOf(await rig.start('getsession-a', { stateUrl: STATE_URL, serviceUrl: front.baseUrl }));
  }, 60_000);

  /** When each GetSession arrived (the scripted server records requests, not their times). */
  const arrivals: number[] = [];
  const timed =
    (h: Handler): Handler =>
    (req, res, raw) => {
      arrivals.push(Date.now());
      return h(req, res, raw);
    };
  const scriptGetSession = (...handlers: Handler[]): void => {
    front.on('POST', GET_SESSION, ...handlers.map(timed));
  };
  const getSessionTimes = (): number[] => [...arrivals];

  beforeEach(() => {
    front.requests.length = 0;
    arrivals.length = 0;
  });

  async function askAndWaitForFailure(
    channel: string,
    question: string,
  ): Promise<{ root: FakeMessage; told: FakeMessage }> {
    const root = await rig.ask(driver, question, channel);
    const told = await waitFor(
      () =>
        rig
          .botReplies(channel, root.ts)
          .find((m) => /could not open a chat session/i.test(m.text) && buttonsOf(m).some((b) => b.text === 'Retry')),
      'the user told GetSession failed, with a Retry button',
      30_000,
    );
    expect(told.text).toMatch(/could not open a chat session/i);
    return { root, told };
  }

  function expectBackoff(times: number[]): void {
    // The first call and 3 retries, each retry waiting longer than the one before (exponential).
    expect(times).toHaveLength(4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(150);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
  }

  test.each([
    ['5xx', 'C0GS5XX', 'Homes for sale in Austin please', status(503, { error: 'unavailable' })],
    ['network error', 'C0GSNET', 'Homes for rent in Denver please', drop],
  ] as const)(
    '%s: 4 calls with growing gaps, then the user is told; Retry works once the service is back',
    async (_, channel, question, failure) => {
      scriptGetSession(failure);
      const { root, told } = await askAndWaitForFailure(channel, question);
      expectBackoff(getSessionTimes());
      expect(rig.service.storedAnswers(question)).toHaveLength(0);

      scriptGetSession(passThrough);
      const retry = buttonsOf(told).find((b) => b.text === 'Retry')!;
      await driver.click(retry, { channel, messageTs: told.ts, threadTs: root.ts }, { user: 'U0USER1' });
      await rig.expectAnswered(channel, root.ts, question);
    },
    60_000,
  );

  test('two failures then success: answered without bothering the user', async () => {
    scriptGetSession(status(502), drop, passThrough);
    const question = 'Condos for sale in Seattle please';
    const root = await rig.ask(driver, question, 'C0GSOK');
    await rig.expectAnswered('C0GSOK', root.ts, question);
    expect(getSessionTimes()).toHaveLength(3);
    expect(rig.botReplies('C0GSOK', root.ts).some((m) => /could not open a chat session/i.test(m.text))).toBe(false);
  }, 60_000);
});
