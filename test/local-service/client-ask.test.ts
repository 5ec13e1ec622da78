import http from 'node:http';
import { type Harness, harness, KEYS, streamObjects } from './helpers';

interface AskData {
  messageid: number;
  content: string;
  totalToken: number;
  noAnswer: boolean;
}

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const ask = async (sessionID: number, content: string, extra: Record<string, unknown> = {}) =>
  h.post<AskData>('/chat/Chat/ClientAsk', { sessionID, content, ...extra });

async function upload(fileName: string, bytes: Buffer): Promise<number> {
  const r = await h.post<{ FileStoreId: string; PreUploadUrl: string }>('/chat/User/GetPreUploadUrl', { fileName });
  expect(r.body.Success).toBe(true);
  expect(typeof r.body.Data.FileStoreId).toBe('string');
  expect(r.body.Data.PreUploadUrl.startsWith(h.url)).toBe(true);
  const put = await fetch(r.body.Data.PreUploadUrl, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(put.status).toBe(200);
  return Number(r.body.Data.FileStoreId);
}

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
const WAV = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(32)]);
const MP4 = Buffer.concat([Buffer.alloc(4), Buffer.from('ftypisom'), Buffer.alloc(32)]);
const GIF_STILL = Buffer.concat([
  Buffer.from('GIF89a'),
  Buffer.alloc(16),
  Buffer.from([0x21, 0xf9, 0x04]),
  Buffer.alloc(16),
]);
const GIF_ANIM = Buffer.concat([
  Buffer.from('GIF89a'),
  Buffer.alloc(8),
  Buffer.from('NETSCAPE2.0'),
  Buffer.from([0x21, 0xf9, 0x04]),
  Buffer.alloc(8),
  Buffer.from([0x21, 0xf9, 0x04]),
]);

describe('ClientAsk, plain', () => {
  it('answers Data {messageid, content, totalToken, noAnswer} grounded in listings', async () => {
    const sid = await h.session();
    const r = await ask(sid, 'Show me homes for sale in Austin');
    expect(r.body.Success).toBe(true);
    expect(r.body.Data).toEqual({
      messageid: expect.any(Number),
      content: expect.any(String),
      totalToken: expect.any(Number),
      noAnswer: false,
    });
    expect(r.body.Data.content).toMatch(/Austin, TX/);
    expect(r.body.Data.content).toMatch(/\$\d{3},\d{3}/);
    expect(r.body.Data.content).toMatch(/MLS ATX\d+/);
    expect(r.body.Data.content.length).toBeGreaterThan(200);
  });

  it('is deterministic', async () => {
    const [a, b] = [
      await ask(await h.session(), 'rentals in Seattle'),
      await ask(await h.session(), 'rentals in Seattle'),
    ];
    expect(a.body.Data.content).toBe(b.body.Data.content);
    expect(a.body.Data.content).toMatch(/for rent in Seattle/);
    expect(a.body.Data.content).toMatch(/\/month/);
  });

  it('greets with WelcomeMessage and answers an MLS number in detail', async () => {
    const sid = await h.session();
    expect((await ask(sid, 'Hello!')).body.Data.content).toBe(
      h.svc.context.chatbots.get('demo')?.settings.WelcomeMessage,
    );
    const mls = (await ask(sid, 'Tell me about MLS DEN240007')).body.Data;
    expect(mls.noAnswer).toBe(false);
    expect(mls.content).toContain('DEN240007');
    expect(mls.content).toMatch(/Denver, CO/);
  });

  it('bedrooms and price filters narrow the answer', async () => {
    const r = (await ask(await h.session(), '4 bedroom homes for sale under $900k')).body.Data.content;
    const beds = [...r.matchAll(/(\d+) bd/g)].map((m) => Number(m[1]));
    expect(beds.length).toBeGreaterThan(0);
    expect(beds.every((b) => b >= 4)).toBe(true);
    const prices = [...r.matchAll(/\$([\d,]+)/g)].map((m) => Number(m[1].replace(/,/g, '')));
    expect(prices.every((p) => p <= 900000)).toBe(true);
  });

  it('nothing relevant: TalkToHumanResponseMessage with noAnswer true', async () => {
    const r = (await ask(await h.session(), 'What is the capital of France?')).body.Data;
    expect(r.noAnswer).toBe(true);
    expect(r.content).toBe(h.svc.context.chatbots.get('demo')?.settings.TalkToHumanResponseMessage);
  });

  it('"all listings" gives a long answer with paragraphs', async () => {
    const r = (await ask(await h.session(), 'Give me all listings please')).body.Data.content;
    expect(r.length).toBeGreaterThan(5000);
    expect(r.split('\n\n').length).toBeGreaterThan(20);
  });

  it('refuses an unknown session and empty content in Text mode', async () => {
    const unknown = await ask(987654321, 'hi');
    expect(unknown.body).toMatchObject({ Success: false, Code: 404 });
    expect(unknown.body.Message).toContain('987654321');
    const empty = await ask(await h.session(), '   ');
    expect(empty.body.Success).toBe(false);
    expect(empty.body.Message).toContain('content');
    const noSession = await h.post('/chat/Chat/ClientAsk', { content: 'hi' });
    expect(noSession.body.Message).toContain('sessionID is required');
    const badType = await ask(await h.session(), 'hi', { chatAskType: 'Pdf' });
    expect(badType.body.Message).toContain('chatAskType must be one of Text, Audio, Image, Video');
  });
});

describe('AnswerSuffix', () => {
  it('is appended to answers', async () => {
    const h2 = await harness({ chatbotId: 'suffixed' });
    try {
      await h2.post('/chat/Chatbot/Edit', {
        serialNumber: 'suffixed',
        AnswerSuffix: '-- Skyline Realty, call 555-0100',
      });
      const sid = await h2.session('suffixed');
      const r = await h2.post<AskData>('/chat/Chat/ClientAsk', { sessionID: sid, content: 'condos in Miami' });
      expect(r.body.Data.content.endsWith('-- Skyline Realty, call 555-0100')).toBe(true);
    } finally {
      await h2.close();
    }
  });
});

describe('ClientAsk, streamed', () => {
  it('SSE: several {content} fragments then {QuestionID, AnswerID, Answer, TotalToken}; fragments equal Answer', async () => {
    const sid = await h.session();
    const r = await ask(sid, 'homes for sale in Denver', { stream: true });
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(r.raw.startsWith('data: {')).toBe(true);
    const objs = streamObjects(r.raw);
    const final = objs[objs.length - 1];
    const deltas = objs.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.every((d) => typeof d.content === 'string' && Object.keys(d).length === 1)).toBe(true);
    expect(final).toMatchObject({
      QuestionID: expect.any(Number),
      AnswerID: expect.any(Number),
      Answer: expect.any(String),
      TotalToken: expect.any(Number),
    });
    expect(deltas.map((d) => d.content).join('')).toBe(final.Answer);
    expect(final.AnswerID).toBeGreaterThan(final.QuestionID as number);
  });

  it('NDJSON framing: one object per line, no data: prefix', async () => {
    const n = await harness({ streamFraming: 'ndjson' });
    try {
      const sid = await n.session();
      const r = await n.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'rentals in Miami', stream: true });
      expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(r.raw).not.toContain('data:');
      const lines = r.raw
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const final = lines[lines.length - 1];
      expect(
        lines
          .slice(0, -1)
          .map((l) => l.content)
          .join(''),
      ).toBe(final.Answer);
    } finally {
      await n.close();
    }
  });

  it('fragments arrive before the answer is complete', async () => {
    const slow = await harness({ fragmentDelayMs: 20 });
    try {
      const sid = await slow.session();
      const res = await fetch(`${slow.url}/chat/Chat/ClientAsk`, {
        method: 'POST',
        headers: { authorization: KEYS.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify({ sessionID: sid, content: 'homes in Seattle', stream: true }),
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      const text = new TextDecoder().decode(first.value);
      expect(text).toMatch(/^data: \{"content":/);
      expect(text).not.toContain('AnswerID');
      await reader.cancel();
    } finally {
      await slow.close();
    }
  });

  it('an error before the stream starts is an envelope', async () => {
    const r = await ask(123, 'hi', { stream: true });
    expect(r.headers.get('content-type')).toMatch(/json/);
    expect(r.body.Success).toBe(false);
  });
});

describe('fileIds and uploads', () => {
  it('the PreUploadUrl accepts the PUT; the FileStoreId is then valid in Image mode (several files)', async () => {
    const a = await upload('front.png', PNG);
    const b = await upload('still.gif', GIF_STILL);
    const r = await ask(await h.session(), '', { chatAskType: 'Image', fileIds: [a, String(b)] });
    expect(r.body.Success).toBe(true);
    expect(r.body.Data.content).toContain('front.png');
  });

  it('Audio takes exactly one WAV; Video exactly one video', async () => {
    const wav = await upload('note.wav', WAV);
    const mp4 = await upload('tour.mp4', MP4);
    const sid = await h.session();
    expect((await ask(sid, '', { chatAskType: 'Audio', fileIds: [wav] })).body.Success).toBe(true);
    expect((await ask(sid, '', { chatAskType: 'Video', fileIds: [mp4] })).body.Success).toBe(true);
    const two = await ask(sid, '', { chatAskType: 'Audio', fileIds: [wav, wav] });
    expect(two.body.Message).toContain('exactly one');
    const mp4AsAudio = await ask(sid, '', { chatAskType: 'Audio', fileIds: [mp4] });
    expect(mp4AsAudio.body.Message).toMatch(/fileIds: .*tour\.mp4.*WAV only/);
    const pngAsVideo = await ask(sid, '', { chatAskType: 'Video', fileIds: [await upload('x.png', PNG)] });
    expect(pngAsVideo.body.Message).toMatch(/MP4, MKV, AVI, FLV or MPEG/);
  });

  it('judges by bytes: a WAV named .png is not an image; an animated GIF is refused', async () => {
    const disguised = await upload('photo.png', WAV);
    const sid = await h.session();
    expect((await ask(sid, '', { chatAskType: 'Image', fileIds: [disguised] })).body.Message).toContain('not an image');
    const anim = await upload('dance.gif', GIF_ANIM);
    expect((await ask(sid, '', { chatAskType: 'Image', fileIds: [anim] })).body.Message).toContain('animated GIF');
  });

  it('by name when the bytes are unknown', async () => {
    const byName = await upload('clip.mkv', Buffer.from('not really matroska'));
    expect((await ask(await h.session(), '', { chatAskType: 'Video', fileIds: [byName] })).body.Success).toBe(true);
  });

  it('images over 20 MB are refused', async () => {
    const big = await upload('huge.png', Buffer.concat([PNG, Buffer.alloc(21 * 1024 * 1024)]));
    const r = await ask(await h.session(), '', { chatAskType: 'Image', fileIds: [big] });
    expect(r.body.Message).toMatch(/up to 20 MB/);
  });

  it('fileIds in Text mode, unknown ids and files not yet uploaded are refused', async () => {
    const sid = await h.session();
    const png = await upload('a.png', PNG);
    expect((await ask(sid, 'hi', { fileIds: [png] })).body.Message).toContain('fileIds');
    expect((await ask(sid, '', { chatAskType: 'Image', fileIds: [99999999] })).body.Message).toContain('99999999');
    const pending = await h.post<{ FileStoreId: string }>('/chat/User/GetPreUploadUrl', { fileName: 'later.png' });
    expect(
      (await ask(sid, '', { chatAskType: 'Image', fileIds: [Number(pending.body.Data.FileStoreId)] })).body.Message,
    ).toContain('not been uploaded');
  });

  it('the PUT refuses a wrong signature', async () => {
    const r = await h.post<{ PreUploadUrl: string }>('/chat/User/GetPreUploadUrl', { fileName: 'x.png' });
    const forged = r.body.Data.PreUploadUrl.replace(/token=[^&]+/, 'token=forged');
    expect((await fetch(forged, { method: 'PUT', body: new Uint8Array(PNG) })).status).toBe(403);
  });

  it('the PUT is refused on its token before its body is read (a 90 MB body announced, a few bytes sent)', async () => {
    const r = await h.post<{ PreUploadUrl: string }>('/chat/User/GetPreUploadUrl', { fileName: 'x.png' });
    const forged = new URL(r.body.Data.PreUploadUrl.replace(/token=[^&]+/, 'token=forged'));
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        forged,
        {
          method: 'PUT',
          headers: { 'content-type': 'application/octet-stream', 'content-length': String(90 * 1024 * 1024) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', (err) => (/ECONNRESET|socket hang up|EPIPE/.test(String(err)) ? undefined : reject(err)));
      // Only the first bytes: the answer must come without the rest ever being sent.
      req.write(Buffer.alloc(1024));
    });
    expect(status).toBe(403);
  });
});

describe('limits', () => {
  it('RateLimitCount per RateLimitTime per session: Code 429 with RateLimitMessage', async () => {
    const l = await harness({ chatbotId: 'limited' });
    try {
      await l.post('/chat/Chatbot/Edit', {
        serialNumber: 'limited',
        RateLimitCount: 2,
        RateLimitTime: 3600,
        RateLimitMessage: 'Slow down, please.',
      });
      const sid = await l.session('limited');
      for (let i = 0; i < 2; i++)
        expect((await l.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hi' })).body.Success).toBe(true);
      const third = await l.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hi' });
      expect(third.body).toMatchObject({ Success: false, Code: 429, Message: 'Slow down, please.' });
      const streamed = await l.post('/chat/Chat/ClientAsk', { sessionID: sid, content: 'hi', stream: true });
      expect(streamed.body).toMatchObject({ Success: false, Code: 429 });
      // Per session: another session of the same chatbot is not limited.
      const other = await l.session('limited');
      expect((await l.post('/chat/Chat/ClientAsk', { sessionID: other, content: 'hi' })).body.Success).toBe(true);
    } finally {
      await l.close();
    }
  });

  it('MessageLimit per calendar month per chatbot; a new month starts afresh', async () => {
    let now = Date.UTC(2025, 0, 31, 23, 0);
    const m = await harness({ chatbotId: 'capped', now: () => now });
    try {
      await m.post('/chat/Chatbot/Edit', { serialNumber: 'capped', MessageLimit: 2 });
      const s1 = await m.session('capped');
      const s2 = await m.session('capped');
      expect((await m.post('/chat/Chat/ClientAsk', { sessionID: s1, content: 'hi' })).body.Success).toBe(true);
      expect((await m.post('/chat/Chat/ClientAsk', { sessionID: s2, content: 'hi' })).body.Success).toBe(true);
      const over = await m.post('/chat/Chat/ClientAsk', { sessionID: s1, content: 'hi' });
      expect(over.body.Success).toBe(false);
      expect(over.body.Code).not.toBe(200);
      expect(over.body.Message).toMatch(/monthly message limit/i);
      now = Date.UTC(2025, 1, 1, 0, 1);
      expect((await m.post('/chat/Chat/ClientAsk', { sessionID: s1, content: 'hi' })).body.Success).toBe(true);
      await m.post('/chat/Chatbot/Edit', { serialNumber: 'capped', MessageLimit: -1 });
      for (let i = 0; i < 3; i++)
        expect((await m.post('/chat/Chat/ClientAsk', { sessionID: s1, content: 'hi' })).body.Success).toBe(true);
    } finally {
      await m.close();
    }
  });
});

describe('concurrency', () => {
  it('100 concurrent ClientAsk calls all answer, each with its own message ids', async () => {
    const sessions = await Promise.all(Array.from({ length: 10 }, () => h.session()));
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        ask(sessions[i % 10], i % 2 === 0 ? 'homes for sale in Austin' : 'rentals in Denver', { stream: i % 3 === 0 }),
      ),
    );
    const ids = new Set<number>();
    for (const r of results) {
      if (r.headers.get('content-type')?.startsWith('text/event-stream')) {
        const objs = streamObjects(r.raw);
        const final = objs[objs.length - 1];
        expect(
          objs
            .slice(0, -1)
            .map((o) => o.content)
            .join(''),
        ).toBe(final.Answer);
        ids.add(final.AnswerID as number);
      } else {
        expect(r.body.Success).toBe(true);
        ids.add(r.body.Data.messageid);
      }
    }
    expect(ids.size).toBe(100);
  });
});
