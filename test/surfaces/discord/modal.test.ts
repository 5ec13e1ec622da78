/**
 * A form chunk as a Discord modal (Labels around text inputs and a channel select) and its submit
 * read back with zod, as discord.js hands it over (`ModalSubmitInteraction.components`).
 */
import { Collection } from 'discord.js';
import type { FormField } from '../../../src/core/surface';
import { chunkFields, type FormSession } from '../../../src/surfaces/discord/forms';
import { modalOf, submittedValues } from '../../../src/surfaces/discord/modal';

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
});
