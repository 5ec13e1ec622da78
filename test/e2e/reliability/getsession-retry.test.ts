/**
 * GetSession failing with 5xx or a network error: retried up to 3 times with backoff, then the user
 * is told (with a Retry that works once the service is back). A scripted HTTP server stands in front
 * of the local chatbot service: GetSession fails as scripted, every other request is passed through.
 */
import { request } from 'node:http';
import { FakeChatbotServer, drop, status, type Handler } from '../../support/fake-chatbot-server';
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import {
  BridgeProcess,
  SIGNING_SECRET,
  answerStart,
  bridgeEnv,
  buttonsOf,
  flushRedisDb,
  startSharedService,
  type SharedService,
} from '../../support/bridge-process';

const STATE_URL = 'redis://127.0.0.1:6379/15';
const GET_SESSION = '/chat/Chatbot/GetSession';

describe('reliability: GetSession failing', () => {
  let service: SharedService;
  let front: FakeChatbotServer;
  let fake: FakeSlack;
  let bridge: BridgeProcess;
  let driver: SlackDriver;

  /** Forwards a request to the real local service and streams its answer back. */
  const passThrough: Handler = (req, res) =>
    new Promise<void>((done) => {
      const target = new URL(service.url);
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
    await flushRedisDb(STATE_URL);
    service = await startSharedService(2);
    front = await FakeChatbotServer.start();
    front.fallback(async (req, res) => {
      await passThrough(req, res, undefined as never);
      return true;
    });
    fake = await startFakeSlack({ users: { U0USER1: 'Ada Lovelace' } });
    bridge = await BridgeProcess.start(
      'getsession',
      bridgeEnv({
        serviceUrl: front.baseUrl,
        service: service.service,
        fake,
        stateUrl: STATE_URL,
        instanceId: 'getsession-a',
      }),
    );
    driver = new SlackDriver(bridge.eventsUrl, SIGNING_SECRET, fake.team);
  }, 60_000);

  afterAll(async () => {
    await bridge?.kill();
    await fake?.close();
    await front?.close();
    await service?.close();
  });

  const botReplies = (channel: string, thread: string): FakeMessage[] =>
    fake.replies(channel, thread).filter((m) => m.user === fake.botUserId);
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
    await driver.command('/ask', question, { user: 'U0USER1', channel });
    const root = await waitFor(
      () => fake.channelMessages(channel).find((m) => m.text.includes(`> ${question}`)),
      'the /ask root',
    );
    const told = await waitFor(
      () =>
        botReplies(channel, root.ts).find(
          (m) => /could not open a chat session/i.test(m.text) && buttonsOf(m).some((b) => b.text === 'Retry'),
        ),
      'the user told GetSession failed, with a Retry button',
      30_000,
    );
    return { root, told };
  }

  function expectBackoff(times: number[]): void {
    // The first call and 3 retries, each retry waiting longer than the one before (exponential).
    expect(times).toHaveLength(4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(150);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
  }

  test('5xx: 4 calls with growing gaps, then the user is told; Retry works once the service is back', async () => {
    scriptGetSession(status(503, { error: 'unavailable' }));
    const question = 'Homes for sale in Austin please';
    const { root, told } = await askAndWaitForFailure('C0GS5XX', question);
    expectBackoff(getSessionTimes());
    expect(service.storedAnswers(question)).toHaveLength(0);

    scriptGetSession(passThrough);
    const retry = buttonsOf(told).find((b) => b.text === 'Retry')!;
    await driver.click(retry, { channel: 'C0GS5XX', messageTs: told.ts, threadTs: root.ts }, { user: 'U0USER1' });
    await waitFor(
      () => {
        const stored = service.storedAnswers(question).at(-1);
        return stored !== undefined && answerStart(botReplies('C0GS5XX', root.ts), stored) !== undefined;
      },
      'the answer after Retry',
      30_000,
    );
  }, 60_000);

  test('network error: 4 calls with growing gaps, then the user is told', async () => {
    scriptGetSession(drop);
    const question = 'Homes for rent in Denver please';
    await askAndWaitForFailure('C0GSNET', question);
    expectBackoff(getSessionTimes());
    expect(service.storedAnswers(question)).toHaveLength(0);
  }, 60_000);

  test('two failures then success: answered without bothering the user', async () => {
    scriptGetSession(status(502), drop, passThrough);
    const question = 'Condos for sale in Seattle please';
    await driver.command('/ask', question, { user: 'U0USER1', channel: 'C0GSOK' });
    const root = await waitFor(
      () => fake.channelMessages('C0GSOK').find((m) => m.text.includes(`> ${question}`)),
      'the /ask root',
    );
    await waitFor(
      () => {
        const stored = service.storedAnswers(question).at(-1);
        return stored !== undefined && answerStart(botReplies('C0GSOK', root.ts), stored) !== undefined;
      },
      'the answer',
      30_000,
    );
    expect(getSessionTimes()).toHaveLength(3);
    expect(botReplies('C0GSOK', root.ts).some((m) => /could not open a chat session/i.test(m.text))).toBe(false);
  }, 60_000);
});
