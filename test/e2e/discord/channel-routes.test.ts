/**
 * Where the bot's calls go: answers through channel message routes (interaction tokens expire after
 * 15 minutes), attachments on thread messages uploaded to the service, /analytics's chart uploaded
 * as a multipart file.
 */
import { ask, botMessagesIn, responseText, startDiscordE2E, waitForAnswer } from '../../support/discord-e2e';
import type { FakeMessage } from '../../../fakes/fake-discord';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { answerIn } from '../../support/discord-flows';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A complete 1x1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

describe('Discord: channel routes, attachments, analytics', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 5 }));

  /** Every call the fake got for a thread's messages, and whether each went through the channel routes. */
  function threadCalls(threadId: string): Array<{ method: string; path: string; status: number }> {
    return e.fake.calls.filter((c) => c.path.startsWith(`/channels/${threadId}/`) || c.path.includes(threadId));
  }

  function assertChannelRouted(threadId: string, messages: FakeMessage[]): void {
    for (const m of messages) {
      // Created by POST /channels/{thread}/messages, never by an interaction webhook.
      expect(m.interactionId).toBeUndefined();
      expect(m.webhook_id).toBeUndefined();
      const edits = e.fake
        .callsTo('PATCH', new RegExp(`^/channels/${threadId}/messages/${m.id}$`))
        .filter((c) => c.status === 200);
      // Every version after the first came from a channel-route edit.
      expect(edits.length).toBe(m.history.length - 1);
      expect(e.fake.calls.filter((c) => /^\/webhooks\//.test(c.path) && c.path.endsWith(`/messages/${m.id}`))).toEqual(
        [],
      );
    }
    const posts = e.fake
      .callsTo('POST', new RegExp(`^/channels/${threadId}/messages$`))
      .filter((c) => c.status === 200);
    expect(posts.length).toBeGreaterThanOrEqual(messages.length);
  }

  test('answers stream through channel message routes, and a follow-up long after (token expired) is still answered', async () => {
    const question = 'Give me the long answer: every listing you have in Denver';
    const { threadId, rec } = await ask(e, question);
    // From here on the interaction's token is dead, as it is 15 minutes after the command.
    e.fake.revokeInteractionToken(rec);
    const revokedAt = Date.now();
    const first = await waitForAnswer(e, threadId, question, 40_000);
    assertChannelRouted(threadId, first.messages);

    const follow = 'And which of those are for rent?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow });
    const second = await waitForAnswer(e, threadId, follow);
    assertChannelRouted(threadId, second.messages);

    // Nothing used the dead token (it would have been refused with 401).
    const withToken = e.fake.calls.filter((c) => c.path.includes(rec.token) && c.at >= revokedAt);
    expect(withToken).toEqual([]);
    expect(e.fake.calls.filter((c) => c.status === 401)).toEqual([]);
    expect(threadCalls(threadId).filter((c) => c.status >= 400)).toEqual([]);
  }, 60_000);

  test('an image on a thread message is fetched, uploaded (GetPreUploadUrl + PUT) and asked as Image with its fileIds', async () => {
    const question = 'Homes for sale in Miami?';
    const { threadId } = await ask(e, question);
    expect(await answerIn(e, threadId, question)).toContain('homes for sale in Miami');
    const fetchesBefore = e.fake.fileFetches;
    const requestsBefore = e.serviceRequests.length;
    const file = e.fake.addFile('front-porch.png', PNG, 'image/png');
    const follow = 'What style is this house?';
    e.fake.userMessage({ channelId: threadId, member: e.user, content: follow, attachments: [file] });

    type AskBody = { content?: string; chatAskType?: string; fileIds?: number[] };
    const asked = await waitFor(
      () =>
        e.serviceRequests
          .slice(requestsBefore)
          .find((r) => r.url.startsWith('/chat/Chat/ClientAsk') && (r.body as AskBody).content === follow),
      'the question with its image reaching the service',
      15_000,
      e.fake.changes,
    );
    expect(e.fake.fileFetches).toBe(fetchesBefore + 1);
    const body = asked.body as AskBody;
    expect(body.chatAskType).toBe('Image');
    expect(body.fileIds).toHaveLength(1);
    const since = e.serviceRequests.slice(requestsBefore);
    expect(since.filter((r) => r.url.startsWith('/chat/User/GetPreUploadUrl'))).toHaveLength(1);
    const puts = since.filter((r) => r.method === 'PUT' && r.url.startsWith(`/upload/${body.fileIds![0]}`));
    expect(puts).toHaveLength(1);
    const upload = e.service.context.db
      .prepare(`SELECT file_name AS name, size FROM uploads WHERE id = ?`)
      .get(body.fileIds![0]) as { name: string; size: number };
    expect(upload).toEqual({ name: 'front-porch.png', size: PNG.length });
    // The answer acknowledges the picture by its name: the service got it with the question.
    expect(await answerIn(e, threadId, follow)).toContain('I received your image (front-porch.png)');
  }, 40_000);

  test('an unsupported file gets a message saying what is accepted, and nothing is uploaded or asked', async () => {
    const question = 'Homes for rent in Austin?';
    const { threadId } = await ask(e, question);
    expect(await answerIn(e, threadId, question)).toContain('homes for rent in Austin');
    const requestsBefore = e.serviceRequests.length;
    const fetchesBefore = e.fake.fileFetches;
    for (const [name, type] of [
      ['setup.exe', 'application/x-msdownload'],
      ['notes.txt', 'text/plain'],
    ] as const) {
      const before = botMessagesIn(e.fake, threadId).length;
      const file = e.fake.addFile(name, Buffer.from('MZ not a picture'), type);
      e.fake.userMessage({
        channelId: threadId,
        member: e.user,
        content: `Can you read ${name}?`,
        attachments: [file],
      });
      const reply = await waitFor(
        () =>
          botMessagesIn(e.fake, threadId)
            .slice(before)
            .find((m) => m.content.includes(name)),
        `the refusal of ${name}`,
        10_000,
        e.fake.changes,
      );
      expect(reply.content).toMatch(/PNG/);
      expect(reply.content).toMatch(/JPEG/);
      expect(reply.content).toMatch(/WAV/);
      expect(reply.content).toMatch(/MP4/);
    }
    expect(e.fake.fileFetches).toBe(fetchesBefore);
    const since = e.serviceRequests.slice(requestsBefore);
    expect(
      since.filter(
        (r) =>
          r.url.startsWith('/chat/User/GetPreUploadUrl') ||
          r.method === 'PUT' ||
          r.url.startsWith('/chat/Chat/ClientAsk'),
      ),
    ).toEqual([]);
  }, 30_000);

  test('/analytics for an admin: the figures in the reply and the chart PNG uploaded as a multipart attachment', async () => {
    const from = '2024-01-01';
    const to = '2030-12-31';
    const rec = e.fake.slashCommand({
      name: 'analytics',
      channelId: e.general.id,
      member: e.admin,
      options: [
        { name: 'from', type: 3, value: from },
        { name: 'to', type: 3, value: to },
      ],
    });
    const withFile = await waitFor(
      () => e.fake.responsesOf(rec).find((m) => m.attachments.length > 0),
      'the chart',
      15_000,
      e.fake.changes,
    );

    // The figures the service computes for the same range.
    const url = `${e.serviceUrl}/v1/analytics/overview?start_date=${from}T00:00:00Z&end_date=${to}T23:59:59Z&chatbot_id=${e.service.chatbotId}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${e.service.credentials.apiKey}` } });
    expect(res.status).toBe(200);
    const wire = (
      (await res.json()) as {
        data: { metrics: { total_conversations: number; total_messages: number; unique_users: number } };
      }
    ).data.metrics;
    const m = {
      totalConversations: wire.total_conversations,
      totalMessages: wire.total_messages,
      uniqueUsers: wire.unique_users,
    };
    // The earlier tests of this file made conversations, so the figures are not all zero.
    expect(m.totalConversations).toBeGreaterThan(0);
    const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
    // The figures are in the reply (its messages and embeds; the chart's message names the chart).
    const reply = responseText(e, rec);
    expect(reply).toContain(`Conversations: ${fmt.format(m.totalConversations)}`);
    expect(reply).toContain(`Messages: ${fmt.format(m.totalMessages)}`);
    expect(reply).toContain(`Unique users: ${fmt.format(m.uniqueUsers)}`);
    expect(reply).toMatch(/Resolution rate: [\d.,]+%/);

    const att = withFile.attachments[0]!;
    expect(att.filename).toMatch(/\.png$/);
    expect(att.data!.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // It travelled as a file part of a multipart request, not as a link or an embed.
    const uploads = e.fake.calls.filter(
      (c) => c.multipart && c.files.some((f) => f.name === att.filename && f.data.equals(att.data!)),
    );
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.status).toBe(200);
    expect(uploads[0]!.files[0]!.data.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(uploads[0]!.files[0]!.data.length).toBeGreaterThan(1000);
  }, 30_000);
});
