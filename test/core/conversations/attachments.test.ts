import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { TestSurface } from '../../support/test-surface';
import { planAttachments } from '../../../src/core/attachments';
import type { Attachment, Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';

/** A TestSurface whose attachments have real bytes (the local service checks magic numbers). */
class FileSurface extends TestSurface {
  readonly files = new Map<string, Buffer>();
  override async fetchAttachment(att: Attachment): Promise<Buffer> {
    const bytes = this.files.get(att.id);
    if (!bytes) throw new Error(`no file ${att.id}`);
    return bytes;
  }
}

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
const WAV = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([36, 0, 0, 0]),
  Buffer.from('WAVEfmt '),
  Buffer.alloc(64, 0),
]);

describe('attachments', () => {
  let h: CoreHarness;
  let surface: FileSurface;
  let uploads: string[] = [];
  let thread: Place;
  beforeAll(async () => {
    surface = new FileSurface();
    surface.files.set('f-png', PNG);
    surface.files.set('f-wav', WAV);
    h = await startCoreHarness({ surface });
    const original = h.client.upload.bind(h.client);
    h.client.upload = async (name: string, bytes: Buffer) => {
      uploads.push(name);
      return original(name, bytes);
    };
    await h.bridge.command(h.invocation(h.users.alice), 'ask', 'Which homes are for sale in Miami?');
    thread = surface.calls.find((c) => c.op === 'startThread')!.place!;
    await waitFor(
      () => surface.messagesIn(thread).some((m) => (m.current.buttons ?? []).length > 0),
      'surface.messagesIn(thread).some((m) => (m.current.buttons ?? []).le...',
      10_000,
    );
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    uploads = [];
  });

  const count = () => surface.messagesIn(thread).length;

  it('uploads an image and asks with it; the answer completes', async () => {
    const before = count();
    await h.say(h.users.alice, thread, 'Is this house in your listings?', {
      attachments: [{ id: 'f-png', name: 'house.png', mime: 'image/png', size: PNG.length }],
    });
    await waitFor(
      () =>
        count() > before &&
        (surface.messagesIn(thread)[before]!.current.buttons ?? []).some((b) => b.action === 'handoff.request'),
      'count() > before && (surface.messagesIn(thread)[before]!.current.bu...',
      10_000,
    );
    expect(uploads).toEqual(['house.png']);
    expect(surface.messagesIn(thread)[before]!.current.text.length).toBeGreaterThan(0);
  });

  it('uploads one WAV recording as audio', async () => {
    const before = count();
    await h.say(h.users.alice, thread, '', { attachments: [{ id: 'f-wav', name: 'question.wav', mime: 'audio/wav' }] });
    await waitFor(
      () =>
        count() > before &&
        !surface.messagesIn(thread)[before]!.current.typing &&
        surface.messagesIn(thread)[before]!.current.text !== 'Thinking…',
      'count() > before && !surface.messagesIn(thread)[before]!.current.ty...',
      10_000,
    );
    expect(uploads).toEqual(['question.wav']);
  });

  it('refuses other files with a message saying what is accepted, uploading nothing', async () => {
    const cases: Array<{ atts: Attachment[]; says: RegExp }> = [
      { atts: [{ id: 'x', name: 'contract.pdf', mime: 'application/pdf' }], says: /can't read contract\.pdf/ },
      {
        atts: [
          { id: 'f-png', name: 'a.png' },
          { id: 'f-wav', name: 'b.wav' },
        ],
        says: /one kind of file/,
      },
      { atts: [{ id: 'f-png', name: 'huge.png', size: 25 * 1024 * 1024 }], says: /over the 20 MB limit/ },
      {
        atts: [
          { id: 'v1', name: 'a.mp4' },
          { id: 'v2', name: 'b.mp4' },
        ],
        says: /Only one video/,
      },
    ];
    for (const c of cases) {
      const before = count();
      await h.say(h.users.alice, thread, 'what about this?', { attachments: c.atts });
      await waitFor(() => count() > before, 'count() > before', 5000);
      const text = surface.messagesIn(thread)[before]!.current.text;
      expect(text).toMatch(c.says);
      expect(text).toContain('PNG, JPEG, WEBP');
    }
    expect(uploads).toEqual([]);
  });

  it('plans by extension or MIME type', () => {
    expect(
      planAttachments([
        { id: '1', name: 'a.JPG' },
        { id: '2', name: 'b.webp' },
      ]),
    ).toMatchObject({ ok: true, kind: 'Image' });
    expect(planAttachments([{ id: '1', name: 'clip', mime: 'video/mp4', size: 50 * 1024 * 1024 }])).toMatchObject({
      ok: true,
      kind: 'Video',
    });
    expect(planAttachments([{ id: '1', name: 'clip.mkv', size: 101 * 1024 * 1024 }])).toMatchObject({ ok: false });
    expect(planAttachments([{ id: '1', name: 'a.mp3' }])).toMatchObject({ ok: false });
  });
});
