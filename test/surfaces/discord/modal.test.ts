/**
 * A form chunk as a Discord modal (Labels around text inputs and a channel select) and its submit
 * read back with zod, as discord.js hands it over (`ModalSubmitInteraction.components`).
 */
import { Collection } from 'discord.js';
import type { FormField } from '../../../src/core/surface';
import { chunkFields, type FormSession } from '../../../src/surfaces/discord/forms';
import { modalOf, submittedValues } from '../../../src/surfaces/discord/modal';
import { modalProblem } from '../../../fakes/fake-discord-modals';

const field = (name: string, extra: Partial<FormField> = {}): FormField => ({
  name,
  label: name,
  kind: 'text',
  required: true,
  group: 'Chatbot',
  ...extra,
});

function sessionOf(fields: FormField[], values: Record<string, string> = {}): FormSession {
  return {
    formId: 'chatbot.connect',
    title: 'Connect a chatbot',
    state: '',
    submitLabel: 'Connect',
    fields,
    chunks: chunkFields(fields),
    values,
    done: [],
    userId: 'u1',
  };
}

const connectFields = [
  field('chatbotId'),
  field('secretKey', { secret: true }),
  field('sessionKey', { secret: true }),
  field('apiKey', { secret: true, required: false }),
  field('handoffChannel', { kind: 'channel', required: false, hint: 'where tickets for a human go' }),
];

describe('Discord modals', () => {
  test('five fields are five Labels; the channel field a channel select of text and announcement channels', () => {
    const modal = modalOf('k1', sessionOf(connectFields, { chatbotId: 'bot-1' }), 0, true);
    expect(modal.components).toHaveLength(5);
    expect(modal.components.map((c) => c.type)).toEqual([18, 18, 18, 18, 18]);
    const last = modal.components[4] as unknown as {
      label: string;
      description?: string;
      component: Record<string, unknown>;
    };
    expect(last.description).toBe('where tickets for a human go');
    expect(last.component).toMatchObject({
      type: 8,
      custom_id: 'handoffChannel',
      channel_types: [0, 5],
      required: false,
      min_values: 0,
      max_values: 1,
      placeholder: 'Pick a channel',
    });
    expect(last.component.default_values).toBeUndefined();
    const first = modal.components[0] as unknown as { label: string; component: Record<string, unknown> };
    expect(first).toMatchObject({ label: 'chatbotId', component: { type: 4, custom_id: 'chatbotId', value: 'bot-1' } });
  });

  test('with a channel held, the select says it is kept when left empty', () => {
    const modal = modalOf('k1', sessionOf(connectFields, { handoffChannel: '1234' }), 0, true);
    const select = (modal.components[4] as { component: { placeholder?: string } }).component;
    expect(select.placeholder).toBe('Keep the current channel');
  });

  const label = (component: Record<string, unknown>) => ({ type: 18, id: 1, component });

  test('a submit: texts by custom id, the picked channel when Discord resolved it as a text channel', () => {
    const channels = new Collection([['555', { id: '555', type: 0, name: 'desk' }]]);
    const read = submittedValues([
      label({ type: 4, id: 2, customId: 'chatbotId', value: 'bot-1' }),
      label({ type: 8, id: 3, customId: 'handoffChannel', values: ['555'], channels }),
    ]);
    expect(read).toEqual({
      ok: true,
      values: { texts: { chatbotId: 'bot-1' }, channels: { handoffChannel: '555' }, picks: {} },
    });
    const empty = submittedValues([label({ type: 8, id: 3, customId: 'handoffChannel', values: [] })]);
    expect(empty).toEqual({ ok: true, values: { texts: {}, channels: { handoffChannel: undefined }, picks: {} } });
  });

  test('a submit of another shape is refused, naming where (never the value)', () => {
    const unresolved = submittedValues([label({ type: 8, id: 3, customId: 'handoffChannel', values: ['555'] })]);
    expect(unresolved.ok).toBe(false);
    const voice = new Collection([['556', { id: '556', type: 2, name: 'lounge' }]]);
    const wrongType = submittedValues([
      label({ type: 8, id: 3, customId: 'handoffChannel', values: ['556'], channels: voice }),
    ]);
    expect(wrongType).toEqual({ ok: false, why: expect.stringContaining('type') });
    const noValue = submittedValues([label({ type: 4, id: 2, customId: 'secretKey', value: 42 })]);
    expect(noValue.ok).toBe(false);
    const secret = submittedValues([label({ type: 4, id: 2, customId: 'secretKey' }), 'sk_secret-typed']);
    expect(JSON.stringify(secret)).not.toContain('sk_secret-typed');
  });

  test('fixed values are string selects (the held value picked, one outside the list kept), a choice a radio group', () => {
    const fields: FormField[] = [
      field('SaleType', {
        kind: 'select',
        options: [
          { value: 'for_sale', label: 'For sale' },
          { value: 'for_rent', label: 'For rent' },
        ],
      }),
      field('PropertyType', { kind: 'select', options: [{ value: 'House', label: 'House' }] }),
      field('Tours', { kind: 'select', required: false, options: [{ value: '3D', label: '3D tour' }] }),
      field('rating', {
        kind: 'choice',
        options: ['1', '2', '3', '4', '5'].map((v) => ({ value: v, label: v })),
      }),
      field('comment', { kind: 'textarea', required: false }),
    ];
    const modal = modalOf('k2', sessionOf(fields, { SaleType: 'for_rent', PropertyType: 'Loft' }), 0, true);
    expect(modalProblem(modal as unknown as Record<string, unknown>)).toBeUndefined();
    const [sale, type, tours, rating, comment] = modal.components as unknown as Array<{
      component: Record<string, unknown>;
    }>;
    expect(sale!.component).toMatchObject({ type: 3, custom_id: 'SaleType', max_values: 1 });
    expect(sale!.component.options).toEqual([
      { label: 'For sale', value: 'for_sale', default: false },
      { label: 'For rent', value: 'for_rent', default: true },
    ]);
    expect((type!.component.options as Array<{ value: string }>).map((o) => o.value)).toEqual(['House', 'Loft']);
    expect(tours!.component).toMatchObject({ type: 3, required: false, min_values: 0 });
    expect(rating!.component).toMatchObject({ type: 21, custom_id: 'rating' });
    expect(comment!.component).toMatchObject({ type: 4, style: 2, required: false });
    const read = submittedValues([
      label({ type: 3, id: 2, customId: 'SaleType', values: ['for_sale'] }),
      label({ type: 3, id: 3, customId: 'Tours', values: [] }),
      label({ type: 21, id: 4, customId: 'rating', value: '4' }),
    ]);
    expect(read).toEqual({
      ok: true,
      values: { texts: {}, channels: {}, picks: { SaleType: 'for_sale', Tours: '', rating: '4' } },
    });
  });
});

describe('the fake Discord refuses modals as Discord does', () => {
  const text = (id: string) => ({ type: 18, label: id, component: { type: 4, custom_id: id, style: 1 } });
  const modal = (components: unknown[]) => ({ custom_id: 'm', title: 'A form', components });
  const refused = (components: unknown[]) => modalProblem(modal(components))?.[0];

  test('at most 5 top-level components, only Labels, text displays and one-input rows', () => {
    expect(refused([1, 2, 3, 4, 5].map((n) => text(`f${n}`)))).toBeUndefined();
    expect(refused([1, 2, 3, 4, 5, 6].map((n) => text(`f${n}`)))).toBe('data.components');
    expect(refused([{ type: 2, custom_id: 'b', style: 1, label: 'Go' }])).toBe('data.components.0.type');
    expect(refused([{ type: 1, components: [{ type: 19, custom_id: 'up' }] }])).toBe('data.components.0.components');
    expect(refused([{ type: 18, label: 'Up', component: { type: 2, custom_id: 'b' } }])).toBe(
      'data.components.0.component.type',
    );
  });

  test('labels, custom ids, and text inputs without a label of their own inside a Label', () => {
    expect(refused([{ ...text('a'), label: '' }])).toBe('data.components.0.label');
    expect(refused([{ ...text('a'), label: 'x'.repeat(46) }])).toBe('data.components.0.label');
    expect(refused([text('a'), text('a')])).toBe('data.components.1.component.custom_id');
    expect(refused([{ ...text('x'.repeat(101)), label: 'L' }])).toBe('data.components.0.component.custom_id');
    expect(refused([{ type: 18, label: 'A', component: { type: 4, custom_id: 'a', style: 1, label: 'A' } }])).toBe(
      'data.components.0.component.label',
    );
  });

  test('select options, radio groups and file uploads within their limits', () => {
    const options = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `o${i}`, value: `v${i}` }));
    const select = (opts: unknown[], extra = {}) => ({
      type: 18,
      label: 'S',
      component: { type: 3, custom_id: 's', options: opts, ...extra },
    });
    expect(refused([select(options(25))])).toBeUndefined();
    expect(refused([select(options(26))])).toBe('data.components.0.component.options');
    expect(refused([select([])])).toBe('data.components.0.component.options');
    expect(refused([select([...options(2), { label: 'again', value: 'v0' }])])).toBe(
      'data.components.0.component.options.2.value',
    );
    expect(refused([select(options(3), { max_values: 4 })])).toBe('data.components.0.component.max_values');
    expect(refused([select(options(3), { min_values: 0 })])).toBe('data.components.0.component.min_values');
    expect(refused([select(options(3), { disabled: true })])).toBe('data.components.0.component.disabled');
    const radio = (opts: unknown[]) => ({
      type: 18,
      label: 'R',
      component: { type: 21, custom_id: 'r', options: opts },
    });
    expect(refused([radio(options(5))])).toBeUndefined();
    expect(refused([radio(options(1))])).toBe('data.components.0.component.options');
    expect(refused([radio(options(11))])).toBe('data.components.0.component.options');
    expect(refused([radio(options(3).map((o) => ({ ...o, default: true })))])).toBe(
      'data.components.0.component.options',
    );
    const upload = (extra: Record<string, unknown>) => ({
      type: 18,
      label: 'U',
      component: { type: 19, custom_id: 'u', ...extra },
    });
    expect(refused([upload({ min_values: 1, max_values: 10 })])).toBeUndefined();
    expect(refused([upload({ max_values: 11 })])).toBe('data.components.0.component.max_values');
    expect(refused([upload({ min_values: 0 })])).toBe('data.components.0.component.min_values');
    expect(refused([upload({ min_values: 0, required: false })])).toBeUndefined();
  });
});
