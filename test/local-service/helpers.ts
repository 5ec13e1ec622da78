import { buildLocalService, type LocalService, type LocalServiceOptions } from '../../src/local-service';

export const KEYS = { secretKey: 'test-secret', sessionKey: 'test-session', apiKey: 'test-account' } as const;

export interface Envelope<T = unknown> {
  Data: T;
  Version: string;
  Success: boolean;
  Code: number;
  Message: string;
}

export interface HttpResult<T> {
  status: number;
  body: T;
  raw: string;
  headers: Headers;
}

export interface Harness {
  svc: LocalService;
  url: string;
  /** POST a first-family operation with the secret key (pass headers to change credentials). */
  post<T = unknown>(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult<Envelope<T>>>;
  /** Any request, body sent as given when a string. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult<unknown>>;
  v1<T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, key?: string): Promise<HttpResult<T>>;
  session(chatbot?: string): Promise<number>;
  close(): Promise<void>;
}

async function send<T>(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<HttpResult<T>> {
  const res = await fetch(url, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // a stream body: callers read raw
  }
  return { status: res.status, body: parsed as T, raw, headers: res.headers };
}

/** The service on a real port (127.0.0.1, free port). */
export async function harness(opts: LocalServiceOptions = {}): Promise<Harness> {
  const svc = buildLocalService({ ...KEYS, ...opts });
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = svc.app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const h: Harness = {
    svc,
    url,
    post: (path, body, headers = { authorization: KEYS.secretKey }) =>
      send(url + path, 'POST', body, { 'content-type': 'application/json', ...headers }),
    request: (method, path, body, headers = {}) => send(url + path, method, body, headers),
    v1: (method, path, body, key = KEYS.apiKey) =>
      send(url + path, method, body, {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      }),
    async session(chatbot = 'demo') {
      const r = await h.post<{ SessionID: number }>('/chat/Chatbot/GetSession', { serialNumber: chatbot });
      return r.body.Data.SessionID;
    },
    close: () => svc.app.close(),
  };
  return h;
}

/** Objects of a streamed body, in either framing. */
export function streamObjects(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .map((l) => l.replace(/^data: /, '').trim())
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function listingBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    SerialNumber: 'demo',
    SaleType: 'for_sale',
    Status: 'Active',
    CurrencySymbol: '$',
    PropertyType: 'House',
    Bedrooms: 3,
    Bathrooms: 2.5,
    Url: 'https://homes.example.com/test/1',
    MLSNumber: 'TST000001',
    YearBuilt: 2001,
    DaysOnMarket: 12,
    LotArea: 5000,
    BuildingArea: 2100,
    AreaUnit: 'Square Feet',
    ParkingSpots: 2,
    City: 'Boise',
    State: 'ID',
    Address: '12 Test Lane',
    ZIP: '83702',
    SalePrice: 455000,
    Latitude: 43.61,
    Longitude: -116.2,
    Images: ['https://images.example.com/t/1.jpg'],
    ExtensionColumn: [{ Key: 'Pool', value: 'Yes' }],
    ...overrides,
  };
}
