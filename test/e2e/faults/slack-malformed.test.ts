/**
 * A few hundred malformed or random payloads, signed and unsigned, at POST /slack/events: the
 * process never crashes, keeps serving (a normal /ask afterwards is answered), and at least 90%
 * of them get a non-5xx answer (the ratio is printed).
 */
import { sign } from '../../../fakes/slack-requests';
import { rootFor, startSlackE2E, waitForAnswer, SIGNING_SECRET } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { CrashWatch } from '../../support/crash-watch';
import { malformedCorpus, type Malformed } from './payloads';

const COUNT = 400;
const BATCH = 16;

describe('Slack e2e faults: malformed payloads at /slack/events', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2 }));
  const watch = new CrashWatch();
  beforeAll(() => watch.start());
  afterAll(() => watch.stop());

  async function send(p: Malformed): Promise<number> {
    const ts = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { 'x-slack-request-timestamp': String(ts) };
    if (p.contentType !== undefined) headers['content-type'] = p.contentType;
    headers['x-slack-signature'] = p.signed ? sign(SIGNING_SECRET, ts, p.body.toString('utf8')) : 'v0=0123456789abcdef';
    try {
      const res = await fetch(e.driver.eventsUrl, {
        method: 'POST',
        headers,
        body: new Uint8Array(p.body),
        signal: AbortSignal.timeout(15_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      // The server dropped the connection without answering (fine only for bodies over the limit).
      return 0;
    }
  }

  test(`${COUNT} malformed payloads: no crash, >= 90% non-5xx, and the bridge keeps serving`, async () => {
    const corpus = malformedCorpus(e.fake.team, COUNT);
    expect(corpus.length).toBeGreaterThanOrEqual(COUNT);
    const results: Array<{ p: Malformed; status: number }> = [];
    for (let i = 0; i < corpus.length; i += BATCH) {
      const batch = corpus.slice(i, i + BATCH);
      const statuses = await Promise.all(batch.map(send));
      batch.forEach((p, j) => results.push({ p, status: statuses[j]! }));
    }
    const ok = results.filter((r) => r.status >= 200 && r.status < 500);
    const ratio = ok.length / results.length;
    const bad = results.filter((r) => !(r.status >= 200 && r.status < 500)).map((r) => `${r.status} ${r.p.label}`);
    console.log(
      `malformed payloads: ${ok.length}/${results.length} answered non-5xx (${(ratio * 100).toFixed(1)}%)${bad.length ? `; others: ${bad.join(', ')}` : ''}`,
    );
    expect(ratio).toBeGreaterThanOrEqual(0.9);

    // Signed or not, none of the known-malformed bodies reached a handler that could answer 200 by accident.
    const signedNull = results.filter(
      (r) => r.p.signed && /^(json null|payload=null|event null|block_actions actions null) /.test(r.p.label),
    );
    for (const r of signedNull) expect(r.status).toBe(400);
    for (const r of results.filter(
      (x) => !x.p.signed && !x.p.label.startsWith('ssl_check') && !x.p.label.startsWith('over the size'),
    )) {
      expect(r.status).toBe(401);
    }
    for (const r of results.filter((x) => x.p.label.startsWith('over the size'))) expect(r.status).toBe(413);

    // Still serving: health, and a normal question answered exactly.
    const health = await fetch(`${e.app.url}/healthz`);
    expect(health.status).toBe(200);
    const q = 'Homes for sale in Austin, after the garbage?';
    const ack = await e.driver.command('/ask', q, { user: 'U0USER1', channel: 'C0AFTERMAL' });
    expect(ack.status).toBe(200);
    const root = await waitFor(() => rootFor(e.fake, 'C0AFTERMAL', q), 'the root after the malformed payloads');
    const { messages } = await waitForAnswer(e, 'C0AFTERMAL', root.ts, q);
    expect(messages.map((m) => m.text).join('\n')).toContain('homes for sale in Austin');
    await e.app.bridge.conversations.idle();
    expect(watch.crashes).toEqual([]);
  }, 180_000);
});
