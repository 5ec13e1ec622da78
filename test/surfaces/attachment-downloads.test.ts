/**
 * Attachment downloads: the Slack bot token goes only to Slack's hosts (or SLACK_API_URL's), and
 * every download is capped in bytes and in time with a clear message.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AttachmentTooLargeError } from '../../src/core/attachments';
import { downloadCapped } from '../../src/surfaces/download';
import { slackFileHost } from '../../src/surfaces/slack/file-host';

describe('which hosts get the Slack bot token', () => {
  test.each([
    ['https://files.slack.com/files-pri/T1-F1/a.png', undefined, true],
    ['https://slack-files.com/T1-F1-abc', undefined, true],
    ['https://evil.test/files-pri/a.png', undefined, false],
    ['https://files.slack.com.evil.test/a.png', undefined, false],
    ['http://files.slack.com/a.png', undefined, false],
    ['https://files.slack.com:8443/a.png', undefined, false],
    ['http://127.0.0.1:4000/files-pri/F1', 'http://127.0.0.1:4000/api/', true],
    ['http://127.0.0.1:4001/files-pri/F1', 'http://127.0.0.1:4000/api/', false],
    ['not a url', undefined, false],
  ])('%s (SLACK_API_URL %s): %s', (url, api, ok) => {
    expect(slackFileHost(url, api)).toBe(ok);
  });
});

describe('downloads are capped in bytes and time', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<string | undefined> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.url === '/big-announced') {
        res.writeHead(200, { 'content-length': String(5_000) });
        res.end(Buffer.alloc(5_000));
      } else if (req.url === '/big-streamed') {
        res.writeHead(200);
        const timer = setInterval(() => res.write(Buffer.alloc(1_000)), 1);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/slow') {
        res.writeHead(200);
        res.write('a');
      } else {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from('png'));
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  test('a small file downloads', async () => {
    const got = await downloadCapped(`${base}/ok`, { name: 'a.png', platform: 'Slack', maxBytes: 1_000 });
    expect(got.bytes.toString()).toBe('png');
  });

  test('too big (announced or streamed): a clear AttachmentTooLargeError', async () => {
    await expect(
      downloadCapped(`${base}/big-announced`, { name: 'huge.mp4', platform: 'Slack', maxBytes: 1_000 }),
    ).rejects.toBeInstanceOf(AttachmentTooLargeError);
    const err = await downloadCapped(`${base}/big-streamed`, {
      name: 'endless.mp4',
      platform: 'Discord',
      maxBytes: 10_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AttachmentTooLargeError);
    expect((err as Error).message).toMatch(/endless\.mp4 is too big/);
  });

  test('too slow: abandoned after the time cap, with a clear message', async () => {
    await expect(
      downloadCapped(`${base}/slow`, { name: 'slow.wav', platform: 'Slack', timeoutMs: 300 }),
    ).rejects.toThrow(/did not hand out slow\.wav within/);
  });
});
