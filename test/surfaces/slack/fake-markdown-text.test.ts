/**
 * The fake Slack takes text the way @slack/web-api's chatStream and the Chat SDK send it: `chunks`
 * of `markdown_text` on the stream methods, and `markdown_text` in place of `text` on posts and edits.
 */
import { FakeSlack } from '../../../fakes/fake-slack';
import { useStarted } from '../../support/server-setup';

describe('fake Slack: markdown_text and chunks', () => {
  const fake = useStarted(() => new FakeSlack().start());

  const call = async (method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const res = await fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const md = (text: string) => [{ type: 'markdown_text', text }];

  test('a stream started, appended to and stopped with chunks shows their text in order', async () => {
    const start = await call('chat.startStream', {
      channel: 'C1',
      thread_ts: '1700000000.000001',
      chunks: md('Hello'),
    });
    expect(start.ok).toBe(true);
    const ts = String(start.ts);
    expect((await call('chat.appendStream', { channel: 'C1', ts, chunks: md(', wor') })).ok).toBe(true);
    expect((await call('chat.stopStream', { channel: 'C1', ts, chunks: md('ld.') })).ok).toBe(true);
    const msg = fake.message('C1', ts);
    expect(msg?.text).toBe('Hello, world.');
    expect(msg?.history).toEqual(['Hello', 'Hello, wor', 'Hello, world.']);
    // An append with no text at all is still refused, as Slack does.
    const again = await call('chat.startStream', { channel: 'C1', thread_ts: '1700000000.000002' });
    expect((await call('chat.appendStream', { channel: 'C1', ts: String(again.ts), chunks: [] })).error).toBe(
      'invalid_arguments',
    );
  });

  test('markdown_text posts and edits a message; neither text nor markdown_text is refused', async () => {
    const posted = await call('chat.postMessage', { channel: 'C2', markdown_text: '**first**' });
    expect(posted.ok).toBe(true);
    expect((await call('chat.update', { channel: 'C2', ts: posted.ts, markdown_text: '**second**' })).ok).toBe(true);
    expect(fake.message('C2', String(posted.ts))?.history).toEqual(['**first**', '**second**']);
    expect((await call('chat.postMessage', { channel: 'C2' })).error).toBe('no_text');
  });
});
