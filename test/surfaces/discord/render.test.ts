import { SqliteStore } from '../../../src/state/sqlite-store';
import { buttonId, parseId } from '../../../src/surfaces/discord/custom-ids';
import { chunkFields } from '../../../src/surfaces/discord/forms';
import { shownValue, typedValue } from '../../../src/surfaces/discord/modal';
import { contentOf, renderMessage, TYPING_MARK, type ApiRow } from '../../../src/surfaces/discord/render';
import { slashCommandDefinitions } from '../../../src/surfaces/discord/commands';
import type { FormField } from '../../../src/core/surface';
import { shownAsText, untrusted } from '../../../src/core/text/untrusted';

describe('Discord rendering', () => {
  const store = new SqliteStore(':memory:');
  afterAll(async () => {
    await store.close();
  });

  test('content is the text exactly; the typing mark only while typing and only when it fits', () => {
    expect(contentOf({ text: 'Hello' })).toBe('Hello');
    expect(contentOf({ text: 'Hello', typing: true })).toBe(`Hello${TYPING_MARK}`);
    const full = 'x'.repeat(2000);
    expect(contentOf({ text: full, typing: true })).toBe(full);
  });

  test('untrusted words show their [label](url) as text: escaped, the URL in <...>, previews off', async () => {
    const link = '[Reset your password](https://evil.example/reset)';
    const inert = '\\[Reset your password\\](<https://evil.example/reset>)';
    // Inside core's Markdown, only the span that came from a user.
    const quoted = await renderMessage(
      { text: `*Ada:* ${shownAsText(untrusted(link))} and [ours](https://good.example)`, markdown: true },
      (b) => buttonId(store, '@me:D0', b),
    );
    expect(quoted.body.content).toBe(`*Ada:* ${inert} and [ours](https://good.example)`);
    expect(quoted.body.flags).toBe(4);
    // The chatbot's answer keeps its link and its preview.
    const answer = await renderMessage({ text: link, markdown: true }, (b) => buttonId(store, '@me:D0', b));
    expect(answer.body.content).toBe(link);
    expect(answer.body.flags).toBeUndefined();
    // A message core did not write as Markdown is inert as a whole.
    const notice = await renderMessage({ text: `Sorry: ${link}` }, (b) => buttonId(store, '@me:D0', b));
    expect(notice.body.content).toBe(`Sorry: ${inert}`);
    // A listing's field in an embed: no masked link there either.
    const card = await renderMessage(
      { text: '', cards: [{ title: 'Home', fields: [{ label: 'Description', value: link }] }] },
      (b) => buttonId(store, '@me:D0', b),
    );
    expect(card.body.embeds[0]!.fields![0]!.value).toBe('\\[Reset your password\\](https://evil.example/reset)');
  });

  test('cards become embeds within Discord limits; a notice never enters the content', async () => {
    const card = {
      title: 't'.repeat(400),
      fields: Array.from({ length: 30 }, (_, i) => ({ label: `f${i}`, value: 'v'.repeat(1500) })),
    };
    const { body } = await renderMessage(
      { text: 'answer', notice: 'Answer interrupted', cards: Array.from({ length: 12 }, () => card) },
      (b) => buttonId(store, '@me:D0', b),
    );
    expect(body.content).toBe('answer');
    expect(body.embeds.length).toBeLessThanOrEqual(10);
    let total = 0;
    for (const e of body.embeds) {
      expect((e.title ?? '').length).toBeLessThanOrEqual(256);
      expect((e.fields ?? []).length).toBeLessThanOrEqual(25);
      for (const f of e.fields ?? []) expect(f.value.length).toBeLessThanOrEqual(1024);
      total +=
        (e.title ?? '').length +
        (e.description ?? '').length +
        (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);
    }
    expect(total).toBeLessThanOrEqual(6000);
  });

  test('buttons go 5 to a row; a long action value is kept in the store behind a short id', async () => {
    const buttons = Array.from({ length: 7 }, (_, i) => ({
      action: 'listings.page',
      label: `B${i}`,
      value: i === 6 ? 'v'.repeat(300) : String(i),
    }));
    const { body } = await renderMessage({ text: 'x', buttons }, (b) => buttonId(store, '@me:D0', b));
    const rows = body.components as ApiRow[];
    expect(rows.map((r) => r.components.length)).toEqual([5, 2]);
    const long = rows[1]!.components[1]!.custom_id;
    expect(long.length).toBeLessThanOrEqual(100);
    expect(await parseId(store, '@me:D0', long)).toEqual({
      kind: 'action',
      action: 'listings.page',
      value: 'v'.repeat(300),
    });
  });

  test('form fields are cut into chunks of at most 5 by group', () => {
    const fields: FormField[] = Array.from({ length: 12 }, (_, i) => ({
      name: `F${i}`,
      label: `F${i}`,
      kind: 'text',
      required: false,
      group: i < 9 ? 'a' : 'b',
    }));
    const chunks = chunkFields(fields);
    expect(chunks.map((c) => c.names.length)).toEqual([5, 4, 3]);
    expect(chunks.map((c) => c.label)).toEqual(['A (1/2)', 'A (2/2)', 'B']);
  });

  test('a modal shows an option in words and takes it back in words or as its value; other text as typed', () => {
    const f: FormField = {
      name: 'SaleType',
      label: 'Offered',
      kind: 'select',
      required: true,
      group: 'Where and how it is offered',
      options: [
        { value: 'for_sale', label: 'For sale' },
        { value: 'for_rent', label: 'For rent' },
      ],
    };
    expect(shownValue(f, 'for_rent')).toBe('For rent');
    expect(typedValue(f, 'for rent')).toBe('for_rent');
    expect(typedValue(f, ' For Sale ')).toBe('for_sale');
    expect(typedValue(f, 'FOR_SALE')).toBe('for_sale');
    expect(typedValue(f, 'castle')).toBe('castle');
  });

  test('command definitions stay within Discord limits (25 choices, descriptions of 100)', () => {
    const defs = slashCommandDefinitions();
    const walk = (opts: unknown[] | undefined): void => {
      for (const o of (opts ?? []) as Array<{ description: string; choices?: unknown[]; options?: unknown[] }>) {
        expect(o.description.length).toBeLessThanOrEqual(100);
        expect((o.choices ?? []).length).toBeLessThanOrEqual(25);
        walk(o.options);
      }
    };
    for (const d of defs) {
      expect(d.description.length).toBeLessThanOrEqual(100);
      walk(d.options);
    }
  });
});
