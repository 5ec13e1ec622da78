/**
 * The Slack Web API client's retry policy against a real HTTP server on 127.0.0.1: an answer that
 * says the method is not there (404, 405, 410, 501) is not asked again; a 503 (it may pass) is.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebClient, httpStatus } from '../../../src/surfaces/slack/web';
import { silentLog } from '../../support/silent-log';

describe('Slack Web API retry policy', () => {
  let server: Server;
  let apiUrl: string;
  /** Requests per method; the method name says what status to answer (`status.404`). */
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const method = (req.url ?? '').split('/').pop() ?? '';
      hits.set(method, (hits.get(method) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        res.writeHead(Number(method.split('.')[1]), { 'content-type': 'text/plain' });
        res.end('no');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = () => createWebClient('xoxb-test', apiUrl, silentLog);

  test.each([404, 405, 410, 501])('HTTP %i is asked once and handed up', async (status) => {
    const err: unknown = await client()
      .apiCall(`status.${status}`, {})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(httpStatus(err)).toBe(status);
    expect(hits.get(`status.${status}`)).toBe(1);
  });

  test('HTTP 503 is retried (twice) before it is handed up', async () => {
    const err: unknown = await client()
      .apiCall('status.503', {})
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(httpStatus(err)).toBe(503);
    expect(hits.get('status.503')).toBe(3);
  });
});
