/**
 * A real SMTP server on 127.0.0.1 for tests (the `smtp-server` package): it takes what the bridge
 * sends over the SMTP protocol, can require the credentials of SMTP_URL, can refuse the first mails
 * (a server that refuses, then accepts), and reads each mail back into To, Subject and its plain-text
 * and HTML parts.
 *
 *   const sink = await startSmtpSink({ user: 'bridge', pass: 'pw' });
 *   env.SMTP_URL = sink.url;                       // smtp://bridge:pw@127.0.0.1:<port>
 *   await waitFor(() => sink.mails.length === 1, 'the e-mail arrived', 10_000);
 *   sink.mails[0].subject, .to, .text, .html
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** RCPT TO addresses. */
  to: string[];
  from: string;
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Mails refused so far (each refusal is one SMTP 451 answer to DATA). */
  refused: number;
  /** Refuse the next `n` mails with a temporary failure. */
  refuseNext(n: number): void;
  close(): Promise<void>;
}

export async function startSmtpSink(opts: { user?: string; pass?: string; refuse?: number } = {}): Promise<SmtpSink> {
  let refuseLeft = opts.refuse ?? 0;
  const sink: Omit<SmtpSink, 'url' | 'port'> & { url: string; port: number } = {
    url: '',
    port: 0,
    mails: [],
    refused: 0,
    refuseNext(n) {
      refuseLeft = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS certificate to trust in tests.
    disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.pass) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuseLeft > 0) {
          refuseLeft--;
          sink.refused++;
          const err = new Error('Try again later: mailbox busy') as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        sink.mails.push({
          ...parseMail(raw),
          to: session.envelope.rcptTo.map((r) => r.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  sink.port = port;
  const creds = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? '')}@` : '';
  sink.url = `smtp://${creds}127.0.0.1:${port}`;
  return sink;
}

/** Headers unfolded, by lower-case name (the first of each). */
function headersOf(block: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const cut = line.indexOf(':');
    if (cut > 0) {
      const name = line.slice(0, cut).trim().toLowerCase();
      if (!map.has(name)) map.set(name, line.slice(cut + 1).trim());
    }
  }
  return map;
}

function qpBytes(text: string, underscoreIsSpace: boolean): Buffer {
  const bytes: number[] = [];
  const src = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(src.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '_' && underscoreIsSpace) bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes);
}

/** RFC 2047 encoded words (=?UTF-8?Q?...?= / ?B?), adjacent ones joined. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, data: string) =>
      (enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : qpBytes(data, true)).toString('utf8'),
    );
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  // SMTP carries CRLF line ends; tests read parts with plain newlines.
  const lf = (s: string) => s.replace(/\r\n/g, '\n');
  if (enc === 'base64') return lf(Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8'));
  if (enc === 'quoted-printable') return lf(qpBytes(body, false).toString('utf8'));
  return lf(body);
}

function parseMail(raw: string): Omit<ReceivedMail, 'to' | 'from' | 'raw'> {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = headersOf(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const parts: Array<{ type: string; text: string }> = [];
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const at = chunk.search(/\r?\n\r?\n/);
      const h = headersOf(chunk.slice(0, at));
      parts.push({
        type: (h.get('content-type') ?? 'text/plain').toLowerCase(),
        text: decodeBody(
          chunk
            .slice(at)
            .replace(/^\r?\n\r?\n/, '')
            .replace(/\r?\n$/, ''),
          h.get('content-transfer-encoding'),
        ),
      });
    }
  } else parts.push({ type: type.toLowerCase(), text: decodeBody(body, headers.get('content-transfer-encoding')) });
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text: parts.find((p) => p.type.startsWith('text/plain'))?.text ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.text ?? '',
  };
}

/**
 * A Chicago office open Mon-Fri 09:00-18:00 whose tickets are e-mailed to agents@skyline.example
 * through `sink`, as a deployment configures it (the environment only).
 */
export function officeEnv(sink: SmtpSink): Record<string, string> {
  return {
    HANDOFF_HOURS: 'Mon-Fri 09:00-18:00',
    HANDOFF_TIMEZONE: 'America/Chicago',
    HANDOFF_EMAIL: 'agents@skyline.example',
    SMTP_URL: sink.url,
    MAIL_FROM: 'Skyline Bot <bot@skyline.example>',
  };
}
