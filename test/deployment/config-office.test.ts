/** The variables of handoff around the clock: what they become, and a bad value stops start-up naming it. */
import { ConfigError, loadConfig } from '../../src/deployment/config';
import { redactConfig } from '../../src/deployment/config-redact';

function problemOf(env: Record<string, string>): { variable: string; message: string } {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems[0]!;
  }
  throw new Error('expected a ConfigError');
}

test('every variable maps to typed config', () => {
  const c = loadConfig({
    HANDOFF_HOURS: 'Mon-Fri 09:00-18:00, Sat 10:00-14:00',
    HANDOFF_TIMEZONE: 'America/Chicago',
    HANDOFF_EMAIL: 'agents@example.com',
    SMTP_URL: 'smtps://mailer:s3cret-pw@smtp.example.com:465',
    MAIL_FROM: 'Skyline Bot <bot@example.com>',
    HANDOFF_FIRST_REPLY_S: '300',
    HANDOFF_ESCALATE: 'S0123ABC, U0456DEF,112233445566',
    HANDOFF_ASSIGN: 'Round-Robin',
    HANDOFF_OFFER_S: '90',
    LEADS_DIGEST_HOUR: '7',
  });
  expect(c.office).toEqual({
    hours: expect.arrayContaining([{ weekday: 6, startMin: 600, endMin: 840 }]),
    timeZone: 'America/Chicago',
    email: 'agents@example.com',
    firstReplyMs: 300_000,
    escalate: ['S0123ABC', 'U0456DEF', '112233445566'],
    assign: 'round-robin',
    offerMs: 90_000,
    digestHour: 7,
  });
  expect(c.office.hours).toHaveLength(6);
  expect(c.mail).toEqual({
    url: 'smtps://mailer:s3cret-pw@smtp.example.com:465',
    from: 'Skyline Bot <bot@example.com>',
  });
  // The SMTP credentials never reach a printed configuration.
  const printed = JSON.stringify(redactConfig(c));
  expect(printed).not.toMatch(/s3cret|mailer/);
  expect(redactConfig(c).mail?.url).toBe('smtps://***:***@smtp.example.com:465');
});

test('unset: always open, no e-mail, MAIL_FROM defaulted only with SMTP_URL', () => {
  const c = loadConfig({ HANDOFF_HOURS: ' ' });
  expect(c.office.hours).toBeUndefined();
  expect(c.mail).toBeUndefined();
  expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).mail).toEqual({
    url: 'smtp://127.0.0.1:2525',
    from: 'chatbot-bridge@localhost',
  });
});

test.each([
  [{ HANDOFF_HOURS: 'Mon-Fri 9 to 6' }, 'HANDOFF_HOURS', /"Mon-Fri 9 to 6" is not a day range and hours/],
  [{ HANDOFF_HOURS: 'Mon-Fri 18:00-09:00' }, 'HANDOFF_HOURS', /closes before it opens/],
  [{ HANDOFF_TIMEZONE: 'Central' }, 'HANDOFF_TIMEZONE', /IANA time zone/],
  [{ HANDOFF_EMAIL: 'agents' }, 'HANDOFF_EMAIL', /e-mail address/],
  [{ SMTP_URL: 'http://smtp.example.com' }, 'SMTP_URL', /smtp:\/\//],
  [{ MAIL_FROM: 'bot at example' }, 'MAIL_FROM', /address/],
  [{ HANDOFF_FIRST_REPLY_S: 'soon' }, 'HANDOFF_FIRST_REPLY_S', /seconds/],
  [{ HANDOFF_ESCALATE: '@here' }, 'HANDOFF_ESCALATE', /user-group/],
  [{ HANDOFF_ASSIGN: 'random' }, 'HANDOFF_ASSIGN', /round-robin/],
  [{ HANDOFF_OFFER_S: '0' }, 'HANDOFF_OFFER_S', /seconds/],
  [{ LEADS_DIGEST_HOUR: '24' }, 'LEADS_DIGEST_HOUR', /0 to 23/],
])('a bad value stops start-up naming it: %p', (env, variable, why) => {
  const p = problemOf(env);
  expect(p.variable).toBe(variable);
  expect(p.message).toMatch(why);
});
