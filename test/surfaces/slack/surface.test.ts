/**
 * The Slack surface against the fake Slack Web API, with a recording core: signatures, the
 * malformed-payload gate, acks, dedupe, buttons, modals and the SurfacePort calls.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSlackSurface, type SlackRuntime } from '../../../src/surfaces/slack';
import type { BridgeCore, CommandName, FormResult, IncomingMessage, Invocation } from '../../../src/core/surface';
import { PlatformRateLimitError } from '../../../src/core/surface';
import { SqliteStore } from '../../../src/state/sqlite-store';
import { FakeSlack } from '../../../fakes/fake-slack';
import { SlackDriver, waitFor } from '../../../fakes/slack-requests';
import type { SlackPort } from '../../../src/surfaces/slack/port';
import { silentLog } from '../../support/silent-log';

const SECRET = 'test-signing-secret';

class RecordingCore implements BridgeCore {
  commands: Array<{ inv: Invocation; name: CommandName; args: string }> = [];
  messages: IncomingMessage[] = [];
  actions: Array<{ inv: Invocation; action: string; value: string }> = [];
  forms: Array<{ formId: string; state: string; values: Record<string, string> }> = [];
  onCommand?: (inv: Invocation, name: CommandName, args: string) => Promise<void>;
  formResult: FormResult = { ok: true };

  async command(inv: Invocation, name: CommandName, args: string): Promise<void> {
    this.commands.push({ inv, name, args });
    await this.onCommand?.(inv, name, args);
  }
  async message(msg: IncomingMessage): Promise<boolean> {
    this.messages.push(msg);
    return true;
  }
  async action(inv: Invocation, action: string, value: string): Promise<void> {
    this.actions.push({ inv, action, value });
    await inv.update?.({ text: `page ${value}` });
  }
  async submitForm(
    _inv: Invocation,
    formId: string,
    state: string,
    values: Record<string, string>,
  ): Promise<FormResult> {
    this.forms.push({ formId, state, values });
    return this.formResult;
  }
}

describe('Slack surface (HTTP mode) against the fake Web API', () => {
  let fake: FakeSlack;
  let runtime: SlackRuntime;
  let server: Server;
  let store: SqliteStore;
  let dir: string;
  let driver: SlackDriver;
  const core = new RecordingCore();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slack-surface-'));
    store = new SqliteStore(join(dir, 'state.db'));
    fake = await new FakeSlack({ users: { U0USER1: 'Ada' } }).start();
    runtime = createSlackSurface({
      botToken: fake.botToken,
      signingSecret: SECRET,
      apiUrl: fake.apiUrl,
      adminUsers: ['U0ADMIN'],
      store,
      log: silentLog,
    });
    runtime.attach(core);
    await runtime.start();
    server = createServer((req, res) => runtime.requestListener!(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    driver = new SlackDriver(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
      SECRET,
      fake.team,
    );
  });

  afterAll(async () => {
    await runtime.stop();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await fake.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('start learns the bot identity with auth.test', () => {
    expect(runtime.isReady()).toBe(true);
    expect(runtime.identity()).toEqual({ team: fake.team, botUserId: fake.botUserId, botId: fake.botId });
  });

  test('a forged or stale signature is refused with 401 and causes nothing', async () => {
    const before = { calls: fake.calls.length, commands: core.commands.length };
    const forged = await driver.command('/ask', 'hello', {}, { secret: 'wrong-secret' });
    const stale = await driver.command('/ask', 'hello', {}, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    const missing = await driver.command('/ask', 'hello', {}, { signature: '' });
    expect([forged.status, stale.status, missing.status]).toEqual([401, 401, 401]);
    expect(fake.calls.length).toBe(before.calls);
    expect(core.commands.length).toBe(before.commands);
  });

  test('signed malformed bodies answer 4xx, never 5xx, and the surface keeps serving', async () => {
    const bodies: Array<[string, string]> = [
      ['null', 'application/json'],
      ['[]', 'application/json'],
      ['"x"', 'application/json'],
      ['{"type":"event_callback"}', 'application/json'],
      ['{"type":"event_callback","event_id":"E1","event":null}', 'application/json'],
      ['{"type":"event_callback","event_id":5,"event":{"type":"message"}}', 'application/json'],
      ['{not json', 'application/json'],
      ['payload=null', 'application/x-www-form-urlencoded'],
      ['payload=%7B%22type%22%3A%22block_actions%22%7D', 'application/x-www-form-urlencoded'],
      ['payload=%7B%22type%22%3A%22view_submission%22%2C%22view%22%3A7%7D', 'application/x-www-form-urlencoded'],
      ['payload=%5B1%2C2%5D', 'application/x-www-form-urlencoded'],
      ['command=%2Fask&text=1', 'application/x-www-form-urlencoded'],
      ['command=5&user_id=U1&channel_id=C1', 'application/x-www-form-urlencoded'],
      ['', 'application/json'],
    ];
    for (const [body, type] of bodies) {
      const res = await driver.raw(body, type);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const ok = await driver.json({ type: 'url_verification', challenge: 'abc' });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ challenge: 'abc' });
  });

  test('a slash command is acknowledged at once and reaches core with the invoker', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    core.onCommand = async () => held;
    // Core's handler is held until the end: the acknowledgement cannot have waited for it.
    const res = await driver.command('/ask', 'What is  *new*?', { user: 'U0USER1', channel: 'C0GENERAL' });
    expect(res.status).toBe(200);
    expect(driver.lateAcks).toEqual([]);
    const got = await waitFor(() => core.commands.find((c) => c.args === 'What is  *new*?'), 'the command');
    expect(got.name).toBe('ask');
    expect(got.inv.place).toEqual({ surface: 'slack', workspace: fake.team, channel: 'C0GENERAL' });
    expect(got.inv.actor).toEqual({ id: 'U0USER1', name: 'Ada', isAdmin: false });
    release();
    core.onCommand = undefined;
  });

  test('admins come from the configured user ids', async () => {
    await driver.command('/chatbot', 'show', { user: 'U0ADMIN' });
    const got = await waitFor(() => core.commands.find((c) => c.name === 'chatbot'), 'chatbot');
    expect(got.inv.actor.isAdmin).toBe(true);
  });

  test('replies: public via chat.postMessage, ephemeral via chat.postEphemeral, threads start in the channel', async () => {
    core.onCommand = async (inv) => {
      await inv.reply({ text: 'only you', notice: 'psst' }, { ephemeral: true });
      // The bridge's own mention (a token from mention()) is real; a typed `<@U0USER2>` is text.
      const { thread, root } = await inv.surface.startThread(
        inv.place,
        { text: `${inv.surface.mention(inv.actor)} asked:\n> q <@U0USER2>`, markdown: true },
        'q',
      );
      await inv.surface.post(thread, {
        text: 'in thread',
        buttons: [{ action: 'handoff.request', label: 'Talk to a human', value: 'c1' }],
      });
      expect(root.id).toBe(thread.thread);
    };
    await driver.command('/listings', 'city:Austin', { user: 'U0USER1', channel: 'C0REPLY' });
    const eph = await waitFor(() => fake.ephemerals.find((e) => e.text === 'only you'), 'ephemeral');
    expect(eph).toMatchObject({ channel: 'C0REPLY', user: 'U0USER1' });
    const reply = await waitFor(() => fake.messages.find((m) => m.text === 'in thread'), 'thread reply');
    const root = fake.message('C0REPLY', reply.thread_ts!)!;
    expect(root.text).toBe('<@U0USER1> asked:\n> q &lt;@U0USER2&gt;');
    expect(root.thread_ts).toBeUndefined();
    const actions = reply.blocks.find((b) => (b as { type: string }).type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(actions.elements[0]!.action_id).toMatch(/^bridge:/);
    core.onCommand = undefined;
  });

  test('retries reach core with the message id core dedupes on; bot and edited messages are ignored', async () => {
    const root = fake.messages.find((m) => m.channel === 'C0REPLY' && !m.thread_ts)!;
    const event = {
      type: 'message',
      channel: 'C0REPLY',
      channel_type: 'channel',
      user: 'U0USER1',
      text: 'follow up',
      ts: '1700000000.000100',
      thread_ts: root.ts,
    };
    const first = await driver.event(event);
    await driver.event(event, { eventId: first.eventId, retryNum: 1 });
    await driver.event(event, { eventId: first.eventId, retryNum: 2 });
    await driver.event({ ...event, ts: '1700000000.000101', bot_id: 'BOTHER', text: 'bot chatter' });
    await driver.event({ ...event, ts: '1700000000.000102', subtype: 'message_changed' });
    await driver.event({ ...event, ts: '1700000000.000103', user: fake.botUserId, text: 'self' });
    await driver.event({
      type: 'message',
      channel: 'C0REPLY',
      channel_type: 'channel',
      user: 'U0USER1',
      text: 'top level chatter',
      ts: '1700000000.000104',
    });
    const mention = await driver.event({
      type: 'app_mention',
      channel: 'C0REPLY',
      user: 'U0USER1',
      text: `<@${fake.botUserId}> hi there`,
      ts: '1700000000.000200',
    });
    expect(mention.status).toBe(200);
    await waitFor(() => core.messages.find((m) => m.text === 'hi there'), 'the mention');
    // Core answers a message id once (test/core/conversations covers it): every delivery carries the same id.
    await waitFor(() => core.messages.filter((m) => m.text === 'follow up').length === 3 || undefined, 'the retries');
    const follow = core.messages.filter((m) => m.text === 'follow up');
    for (const m of follow)
      expect(m).toMatchObject({
        id: event.ts,
        startsConversation: false,
        place: { channel: 'C0REPLY', thread: root.ts },
      });
    expect(core.messages.map((m) => m.text)).not.toEqual(
      expect.arrayContaining(['bot chatter', 'self', 'top level chatter']),
    );
    expect(core.messages.find((m) => m.text === 'hi there')).toMatchObject({
      startsConversation: true,
      place: { thread: '1700000000.000200' },
    });
  });

  test('DMs start conversations; shared files become attachments the port can fetch with the bot token', async () => {
    const file = fake.addFile('photo.png', 'image/png', Buffer.from([1, 2, 3, 4]));
    await driver.event({
      type: 'message',
      subtype: 'file_share',
      channel: 'D0DM',
      channel_type: 'im',
      user: 'U0USER1',
      text: 'what is this',
      ts: '1700000001.000001',
      files: [file],
    });
    const msg = await waitFor(() => core.messages.find((m) => m.text === 'what is this'), 'the DM');
    expect(msg.startsConversation).toBe(true);
    expect(msg.place.thread).toBe('1700000001.000001');
    expect(msg.attachments[0]).toMatchObject({ id: file.id, name: 'photo.png', mime: 'image/png' });
    const data = await runtime.surface.fetchAttachment(msg.attachments[0]!);
    expect([...data]).toEqual([1, 2, 3, 4]);
  });

  test('a button click reaches core with its action and value, and update edits the same message', async () => {
    const place = { surface: 'slack' as const, workspace: fake.team, channel: 'C0PAGE' };
    const ref = await runtime.surface.post(place, {
      text: 'page 1',
      buttons: [{ action: 'listings.page', label: 'Next', value: '2' }],
    });
    const msg = fake.message('C0PAGE', ref.id)!;
    const el = (
      msg.blocks.find((b) => (b as { type: string }).type === 'actions') as {
        elements: Array<{ action_id: string; value: string }>;
      }
    ).elements[0]!;
    const res = await driver.click(el, { channel: 'C0PAGE', messageTs: ref.id });
    expect(res.status).toBe(200);
    await waitFor(() => fake.message('C0PAGE', ref.id)!.text === 'page 2', 'the edit');
    expect(core.actions.at(-1)).toMatchObject({ action: 'listings.page', value: '2' });
    expect(fake.channelMessages('C0PAGE')).toHaveLength(1);
  });

  test('forms open as modals; invalid values come back as inline errors, valid ones close the modal', async () => {
    core.onCommand = async (inv) => {
      await inv.openForm!({
        id: 'listing.create',
        title: 'New listing with a very long title',
        state: 'st',
        fields: [
          { name: 'City', label: 'City', kind: 'text', required: true, group: 'Place' },
          { name: 'Price', label: 'Price', kind: 'number', required: true, group: 'Money', initial: '100' },
          {
            name: 'SaleType',
            label: 'Sale type',
            kind: 'select',
            required: false,
            group: 'Money',
            options: [
              { value: 'for_sale', label: 'For sale' },
              { value: 'for_rent', label: 'For rent' },
            ],
          },
          { name: 'Featured', label: 'Featured', kind: 'boolean', required: false, group: 'Money' },
        ],
      });
    };
    await driver.command('/listing', 'create', { user: 'U0ADMIN', channel: 'C0FORM' });
    const view = await waitFor(
      () => fake.views.find((v) => v.callback_id === 'bridge_form:listing.create'),
      'views.open',
    );
    expect((view.title as { text: string }).text.length).toBeLessThanOrEqual(24);
    const input = (view.blocks as Array<Record<string, unknown>>).find((b) => b.block_id === 'Price')!;
    expect(input).toMatchObject({
      type: 'input',
      optional: false,
      element: { type: 'number_input', initial_value: '100' },
    });
    core.formResult = { ok: false, errors: { Price: 'Price must be a number' } };
    const bad = await driver.submitView(
      view,
      { City: 'Austin', Price: 'abc', SaleType: 'for_rent' },
      { user: 'U0ADMIN' },
    );
    expect(bad.status).toBe(200);
    expect(bad.json).toEqual({ response_action: 'errors', errors: { Price: 'Price must be a number' } });
    expect(core.forms.at(-1)).toEqual({
      formId: 'listing.create',
      state: 'st',
      values: { City: 'Austin', Price: 'abc', SaleType: 'for_rent', Featured: '' },
    });
    core.formResult = { ok: true, message: { text: 'Listing created' } };
    const good = await driver.submitView(view, { City: 'Austin', Price: '250000' }, { user: 'U0ADMIN' });
    expect(good.status).toBe(200);
    expect(good.text).toBe('');
    await waitFor(
      () => fake.ephemerals.find((e) => e.text === 'Listing created' && e.channel === 'C0FORM'),
      'the confirmation',
    );
    core.onCommand = undefined;
  });

  test("a native stream's start carries the answer's first words: what the message shows when the start goes out", async () => {
    const channel = { surface: 'slack' as const, workspace: fake.team, channel: 'C0FIRST' };
    const { thread } = await runtime.surface.startThread(channel, { text: 'root' }, 'root');
    // The relay hands an empty streaming message and its later versions; the words are there by
    // the time the start goes out.
    let words = '';
    const latest = () => ({ text: words, markdown: true, typing: true });
    const starting = runtime.surface.streaming!.startNativeStream(thread, { text: '', typing: true }, { latest });
    words = 'Three bedrooms ';
    const stream = await starting;
    expect(stream).toBeDefined();
    const start = fake.callsOf('chat.startStream').at(-1)!;
    expect(start.args.markdown_text).toBe('Three bedrooms ');
    await stream!.append('in Austin.');
    await stream!.stop({ text: 'Three bedrooms in Austin.' });
    const msg = fake.message('C0FIRST', stream!.ref.id)!;
    // The start was the first partial text: no empty message, and the stream went on from it (the
    // stop records the final text once more).
    expect(msg.history).toEqual(['Three bedrooms ', 'Three bedrooms in Austin.', 'Three bedrooms in Austin.']);
    expect(msg.text).toBe('Three bedrooms in Austin.');
  });

  test('native streaming when offered, undefined (and remembered) when refused', async () => {
    const channel = { surface: 'slack' as const, workspace: fake.team, channel: 'C0STREAM' };
    const { thread } = await runtime.surface.startThread(channel, { text: 'root' }, 'root');
    const stream = await runtime.surface.streaming!.startNativeStream(thread, { text: 'Hel' });
    expect(stream).toBeDefined();
    expect(stream!.expiresAt).toBeGreaterThan(Date.now() + 4 * 60 * 1000);
    await stream!.append('lo wor');
    await stream!.stop({
      text: 'Hello world',
      buttons: [{ action: 'handoff.request', label: 'Talk to a human', value: 'x' }],
    });
    const msg = fake.message('C0STREAM', stream!.ref.id)!;
    expect(msg.text).toBe('Hello world');
    expect(msg.history).toEqual(['Hel', 'Hello wor', 'Hello world']);
    expect(JSON.stringify(msg.blocks)).toContain('Talk to a human');

    fake.setStreaming('feature_not_enabled');
    expect(await runtime.surface.streaming!.startNativeStream(thread, { text: 'x' })).toBeUndefined();
    fake.setStreaming('on');
    const calls = fake.callsOf('chat.startStream').length;
    expect(await runtime.surface.streaming!.startNativeStream(thread, { text: 'x' })).toBeUndefined();
    expect(fake.callsOf('chat.startStream').length).toBe(calls);
  });

  test('a 429 on a post is waited out (Retry-After) and retried; a persistent one surfaces as PlatformRateLimitError', async () => {
    const place = { surface: 'slack' as const, workspace: fake.team, channel: 'C0RL' };
    fake.force429('chat.postMessage', 1, 1);
    const ref = await runtime.surface.post(place, { text: 'x' });
    const [limited, posted] = fake.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0RL');
    expect(limited!.status).toBe(429);
    expect(posted!.status).toBe(200);
    expect(posted!.at - limited!.at).toBeGreaterThanOrEqual(1000 - 25);
    expect(fake.message('C0RL', ref.id)!.text).toBe('x');

    fake.force429('chat.postMessage', 4, 1);
    const err = await runtime.surface.post({ ...place, channel: 'C0RL2' }, { text: 'y' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformRateLimitError);
    expect((err as PlatformRateLimitError).retryAfterMs).toBe(1000);
  });

  test('budgets follow Slack tiers; long markdown stays within block limits; text is exact', async () => {
    const place = { surface: 'slack' as const, workspace: 'T9', channel: 'C9', thread: '1.2' };
    // The surface's gateway owns the budgets: posts per channel, chat.update per workspace.
    const gateway = (runtime.surface as SlackPort).gateway;
    expect(gateway.postBudget(place)).toEqual({ key: 'slack:T9:postMessage:C9', limit: 1, windowMs: 1000 });
    // Under load an answer on chat.update shows its first words, then its final (one step).
    expect(gateway.editBudget(place)).toEqual({
      key: 'slack:T9:chat.update',
      limit: 50,
      windowMs: 60000,
      loadSteps: 1,
    });
    // mention() is a token only the renderer turns into `<@U1>`: user text cannot forge it.
    expect(runtime.surface.mention({ id: 'U1', name: 'x', isAdmin: false })).not.toContain('<@U1>');
    const text = `${'Fish & chips <cheap> **bold** '.repeat(99)}end`;
    expect(text.length).toBeLessThanOrEqual(3000);
    const ref = await runtime.surface.post(
      { surface: 'slack', workspace: fake.team, channel: 'C0LONG' },
      { text, markdown: true, typing: true },
    );
    const msg = fake.message('C0LONG', ref.id)!;
    // Word for word as Slack shows it: its three control characters escaped.
    expect(msg.text).toBe(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    const sections = msg.blocks.filter((b) => (b as { type: string }).type === 'section') as Array<{
      text: { text: string };
    }>;
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) expect(s.text.text.length).toBeLessThanOrEqual(3000);
    expect(sections.at(-1)!.text.text.endsWith('▍')).toBe(true);
  });

  test('posts in one channel are paced by the port: a burst gets no 429', async () => {
    const place = { surface: 'slack' as const, workspace: fake.team, channel: 'C0BURST' };
    const before = fake.rateLimited;
    await Promise.all(Array.from({ length: 6 }, (_, i) => runtime.surface.post(place, { text: `burst ${i}` })));
    expect(fake.channelMessages('C0BURST')).toHaveLength(6);
    expect(fake.rateLimited).toBe(before);
  });

  test('files go up with files.uploadV2 in the thread', async () => {
    const place = { surface: 'slack' as const, workspace: fake.team, channel: 'C0FILE' };
    const { thread } = await runtime.surface.startThread(place, { text: 'analytics' }, 'a');
    await runtime.surface.post(thread, {
      text: 'Chart',
      file: { name: 'chart.png', mime: 'image/png', data: Buffer.from('png-bytes') },
    });
    const done = await waitFor(() => fake.callsOf('files.completeUploadExternal')[0], 'upload');
    expect(done.args).toMatchObject({ channel_id: 'C0FILE', thread_ts: thread.thread });
    const upload = [...fake.uploads.values()].find((u) => u.name === 'chart.png')!;
    expect(upload.data.includes(Buffer.from('png-bytes'))).toBe(true);
  });
});
