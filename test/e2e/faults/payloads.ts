/**
 * Malformed and random payloads for POST /slack/events, generated from a seeded PRNG so a failure
 * reproduces: broken JSON values, `null` bodies, `payload=null`, wrong types and missing fields in
 * otherwise valid Slack payloads, random nesting, random bytes, huge strings, wrong content types.
 */
import { stringify } from 'node:querystring';

export interface Malformed {
  label: string;
  body: Buffer;
  /** undefined: no Content-Type header at all. */
  contentType?: string;
  signed: boolean;
}

const JSON_TYPE = 'application/json';
const FORM = 'application/x-www-form-urlencoded';

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  constructor(readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  string(max = 40): string {
    const alphabet = 'abcXYZ019 _-:/<@>&*{}[]"\'\\\n\t😀é\u0000\u202e';
    let s = '';
    const n = this.int(max);
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)] ?? 'a';
    return s;
  }

  /** A random JSON value, nested up to `depth`. */
  value(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 9 : 6);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.rand() < 0.5;
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2]);
      case 3:
      case 4:
        return this.string();
      case 5:
        return this.pick(['', 'null', 'undefined', '[object Object]', '__proto__', 'constructor']);
      case 6:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
      default: {
        const o: Record<string, unknown> = {};
        const n = this.int(5);
        for (let i = 0; i < n; i++)
          o[this.pick(['type', 'event', 'user', 'id', 'text', 'actions', 'view', this.string(8)])] = this.value(
            depth - 1,
          );
        return o;
      }
    }
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  /** A copy of `obj` with one to three members removed, retyped or replaced by random values (deep). */
  mutate(obj: Record<string, unknown>): Record<string, unknown> {
    const copy = structuredClone(obj);
    const edits = 1 + this.int(3);
    for (let i = 0; i < edits; i++) {
      const path = this.randomPath(copy);
      if (path.length === 0) continue;
      const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], copy) as Record<
        string,
        unknown
      >;
      const key = path[path.length - 1]!;
      const r = this.rand();
      if (r < 0.3) delete parent[key];
      else if (r < 0.45) parent[key] = null;
      else if (r < 0.6) parent[key] = this.pick([[], {}, 42, true, '']);
      else parent[key] = this.value(2);
    }
    return copy;
  }

  private randomPath(obj: unknown, path: string[] = []): string[] {
    if (typeof obj !== 'object' || obj === null) return path;
    const keys = Object.keys(obj);
    if (keys.length === 0) return path;
    const key = this.pick(keys);
    const child = (obj as Record<string, unknown>)[key];
    // Stop at this level sometimes, so shallow members get broken too.
    if (typeof child !== 'object' || child === null || this.rand() < 0.4) return [...path, key];
    return this.randomPath(child, [...path, key]);
  }
}

/** Valid payloads of every kind the bridge handles; mutations of them are "nearly valid". */
export function templates(team: string): Array<{ kind: 'json' | 'form' | 'payload'; value: Record<string, unknown> }> {
  const now = Math.floor(Date.now() / 1000);
  return [
    {
      kind: 'json',
      value: {
        token: 't',
        team_id: team,
        api_app_id: 'A0APP',
        type: 'event_callback',
        event_id: 'Ev0MALFORMED',
        event_time: now,
        event: {
          type: 'message',
          channel: 'C0MALFORMED',
          user: 'U0USER1',
          text: 'hello',
          ts: `${now}.000100`,
          thread_ts: `${now}.000001`,
          channel_type: 'channel',
        },
      },
    },
    {
      kind: 'json',
      value: {
        type: 'event_callback',
        team_id: team,
        event_id: 'Ev0MALMENTION',
        event: {
          type: 'app_mention',
          channel: 'C0MALFORMED',
          user: 'U0USER2',
          text: '<@UBOT> hi',
          ts: `${now}.000200`,
          files: [{ id: 'F1', name: 'a.png', mimetype: 'image/png', size: 3, url_private: 'http://127.0.0.1:9/x' }],
        },
      },
    },
    { kind: 'json', value: { type: 'url_verification', challenge: 'abc', token: 't' } },
    {
      kind: 'form',
      value: {
        command: '/listings',
        text: 'city:Austin',
        user_id: 'U0USER1',
        channel_id: 'C0MALFORMED',
        team_id: team,
        trigger_id: 'trig',
        response_url: 'http://127.0.0.1:9/r',
      },
    },
    {
      kind: 'payload',
      value: {
        type: 'block_actions',
        user: { id: 'U0USER1', name: 'u', team_id: team },
        team: { id: team },
        channel: { id: 'C0MALFORMED' },
        container: { type: 'message', message_ts: `${now}.000300`, channel_id: 'C0MALFORMED' },
        message: { ts: `${now}.000300` },
        trigger_id: 'trig',
        actions: [
          {
            action_id: 'bridge:answer.retry:0',
            value: JSON.stringify({ a: 'answer.retry', v: 'nope' }),
            block_id: 'b',
          },
        ],
      },
    },
    {
      kind: 'payload',
      value: {
        type: 'view_submission',
        user: { id: 'U0USER1', name: 'u' },
        team: { id: team },
        view: {
          id: 'V1',
          callback_id: 'bridge_form:listing.create',
          private_metadata: JSON.stringify({ formId: 'listing.create', state: '{}', channel: 'C0MALFORMED' }),
          state: { values: { City: { v: { type: 'plain_text_input', value: 'Austin' } } } },
        },
      },
    },
  ];
}

/** The corpus: a fixed list of known-nasty bodies, then seeded random ones; `count` in all. */
export function malformedCorpus(team: string, count: number, seed = 7): Malformed[] {
  const g = new Gen(prng(seed));
  const out: Malformed[] = [];
  const add = (label: string, body: string | Buffer, contentType: string | undefined, signed = true): void => {
    out.push({ label, body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body, contentType, signed });
  };
  const fixed: Array<[string, string, string | undefined]> = [
    ['json null', 'null', JSON_TYPE],
    ['json array', '[]', JSON_TYPE],
    ['json number', '1', JSON_TYPE],
    ['json string', '"event_callback"', JSON_TYPE],
    ['json true', 'true', JSON_TYPE],
    ['json empty object', '{}', JSON_TYPE],
    ['empty body', '', JSON_TYPE],
    ['truncated json', '{"type":"event_callback","event":{', JSON_TYPE],
    ['type is a number', '{"type":123}', JSON_TYPE],
    ['event_callback without event', '{"type":"event_callback","event_id":"Ev1"}', JSON_TYPE],
    ['event null', '{"type":"event_callback","event_id":"Ev2","event":null}', JSON_TYPE],
    ['event is a string', '{"type":"event_callback","event_id":"Ev3","event":"message"}', JSON_TYPE],
    [
      'message with wrong types',
      '{"type":"event_callback","event_id":"Ev4","event":{"type":"message","text":5,"user":{},"channel":[],"ts":null}}',
      JSON_TYPE,
    ],
    ['url_verification without challenge', '{"type":"url_verification"}', JSON_TYPE],
    ['payload=null', 'payload=null', FORM],
    ['payload empty', 'payload=', FORM],
    ['payload array', `payload=${encodeURIComponent('[]')}`, FORM],
    ['payload twice', `payload=${encodeURIComponent('{"type":"block_actions"}')}&payload=x`, FORM],
    ['payload not json', 'payload=%7Bnot json', FORM],
    [
      'block_actions without actions',
      `payload=${encodeURIComponent('{"type":"block_actions","user":{"id":"U1"}}')}`,
      FORM,
    ],
    [
      'block_actions actions null',
      `payload=${encodeURIComponent('{"type":"block_actions","user":{"id":"U1"},"actions":null}')}`,
      FORM,
    ],
    [
      'block_actions user null',
      `payload=${encodeURIComponent('{"type":"block_actions","user":null,"actions":[{"action_id":"bridge:x:0"}]}')}`,
      FORM,
    ],
    [
      'view_submission view null',
      `payload=${encodeURIComponent('{"type":"view_submission","user":{"id":"U1"},"view":null}')}`,
      FORM,
    ],
    [
      'view_submission bad metadata',
      `payload=${encodeURIComponent('{"type":"view_submission","user":{"id":"U1"},"view":{"callback_id":"bridge_form:x","private_metadata":"{{{","state":{"values":{}}}}')}`,
      FORM,
    ],
    ['command without fields', 'command=%2Fask', FORM],
    ['command text twice', 'command=%2Flistings&text=a&text=b&user_id=U1&channel_id=C1', FORM],
    ['command unknown', 'command=%2Frm-rf&text=x&user_id=U1&channel_id=C1', FORM],
    ['form empty', '', FORM],
    ['form with json', '{"type":"event_callback"}', FORM],
    ['json with form', 'payload=%7B%7D', JSON_TYPE],
    ['text/plain', '{"type":"event_callback","event_id":"Ev5","event":{"type":"message"}}', 'text/plain'],
    ['xml', '<xml><type>event_callback</type></xml>', 'application/xml'],
    [
      'multipart',
      '--x\r\nContent-Disposition: form-data; name="payload"\r\n\r\nnull\r\n--x--',
      'multipart/form-data; boundary=x',
    ],
    ['no content type', '{"type":"event_callback"}', undefined],
    ['json with charset', '{"type":"url_verification","challenge":"c"}', 'application/json; charset=utf-8'],
    ['form with charset, payload=null', 'payload=null', 'application/x-www-form-urlencoded; charset=utf-8'],
    ['deep nesting', `${'['.repeat(20_000)}${']'.repeat(20_000)}`, JSON_TYPE],
    [
      'deep object nesting',
      `{"type":"event_callback","event_id":"Ev6","event":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`,
      JSON_TYPE,
    ],
    [
      'proto pollution',
      '{"type":"event_callback","event_id":"Ev7","__proto__":{"admin":true},"event":{"type":"message","constructor":{"prototype":{"x":1}}}}',
      JSON_TYPE,
    ],
    [
      'huge text in message',
      JSON.stringify({
        type: 'event_callback',
        event_id: 'Ev8',
        event: { type: 'message', channel: 'C0MALFORMED', user: 'U0USER1', ts: '1.1', text: 'x'.repeat(900_000) },
      }),
      JSON_TYPE,
    ],
    [
      'huge command text',
      stringify({ command: '/listings', text: 'y'.repeat(500_000), user_id: 'U1', channel_id: 'C1' }),
      FORM,
    ],
    ['over the size limit', `{"type":"event_callback","pad":"${'z'.repeat(1_200_000)}"}`, JSON_TYPE],
    ['ssl_check', 'ssl_check=1&token=x', FORM],
  ];
  for (const [label, body, type] of fixed) {
    add(`${label} (signed)`, body, type, true);
    add(`${label} (unsigned)`, body, type, false);
  }
  const tpl = templates(team);
  while (out.length < count) {
    const r = g.rand();
    if (r < 0.45) {
      const t = g.pick(tpl);
      const v = g.mutate(t.value);
      if (t.kind === 'json') add(`mutated ${String(t.value.type)}`, JSON.stringify(v), JSON_TYPE, g.rand() < 0.9);
      else if (t.kind === 'payload')
        add(`mutated ${String(t.value.type)}`, stringify({ payload: JSON.stringify(v) }), FORM, g.rand() < 0.9);
      else {
        const form: Record<string, string> = {};
        for (const [k, val] of Object.entries(v)) form[k] = typeof val === 'string' ? val : JSON.stringify(val);
        add('mutated command', stringify(form), FORM, g.rand() < 0.9);
      }
    } else if (r < 0.7) {
      add(
        'random json',
        JSON.stringify(g.value(4)),
        g.pick([JSON_TYPE, JSON_TYPE, 'text/plain', undefined]),
        g.rand() < 0.8,
      );
    } else if (r < 0.85) {
      add('random payload=', stringify({ payload: JSON.stringify(g.value(4)) }), FORM, g.rand() < 0.8);
    } else {
      add(
        'random bytes',
        g.bytes(g.int(2000)),
        g.pick([JSON_TYPE, FORM, 'application/octet-stream', undefined]),
        g.rand() < 0.7,
      );
    }
  }
  return out;
}
