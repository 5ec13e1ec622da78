/**
 * Every pattern that runs on what users type works in time linear in the text's length. Each is fed
 * 40,000-character adversarial inputs (one unbroken word, `[` repeated, `a@` repeated, digits with
 * separators, nested brackets, and the like) and its work is counted in steps by a StepMeter: a
 * hand-written scanner counts each character it looks at, and a windowed pattern (core/text/
 * windows.ts: bounded repeats, run on windows of at most 1,024 characters) counts the characters
 * handed to it. The bound is stated in steps, as a multiple of the input's length, and the count
 * must also grow in proportion when the input is four times longer. No clock is read.
 */
import {
  extractBedrooms,
  extractBudget,
  extractCity,
  extractEmails,
  extractListings,
  extractPhones,
  noFacts,
  withMessage,
} from '../../../src/core/handoff/lead';
import { linksInSight, trustHosts } from '../../../src/core/text/links';
import { StepMeter } from '../../../src/core/text/steps';
import { shownAsText, untrusted } from '../../../src/core/text/untrusted';
import { stripMention } from '../../../src/surfaces/slack/listeners';
import { convertLinks, markdownToMrkdwn } from '../../../src/surfaces/slack/mrkdwn';

const N = 40_000;

/** `unit` repeated to exactly `n` characters. */
const fill = (unit: string, n = N): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

const ADVERSARIAL: Record<string, (n: number) => string> = {
  'one unbroken word': (n) => fill('a', n),
  'one unbroken capitalised word': (n) => `in ${fill('A', n - 3)}`,
  '[ repeated': (n) => fill('[', n),
  'a@ repeated': (n) => fill('a@', n),
  'a@a. repeated': (n) => fill('a@a.', n),
  'digits with commas': (n) => fill('1,', n),
  'digits with separators': (n) => fill('12-34.5 ', n),
  'a long number': (n) => fill('7', n),
  'dollars and digits': (n) => fill('$1,0', n),
  'nested brackets': (n) => `${fill('[', n / 2)}${fill(']', n / 2)}`,
  'links never closed': (n) => fill('[a](https://x', n),
  'links inside links': (n) => fill('[[a](https://x.test/', n),
  'bracket pairs': (n) => fill('[a](', n),
  'MLS and spaces': (n) => `MLS${fill(' ', n - 13)}ATX2401310`,
  'a street number and long words': (n) => fill('1 Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ', n),
  'bedrooms and spaces': (n) => `3${fill(' ', n - 4)}bed`,
  'spaces and new lines': (n) => fill(' \n', n),
  'URLs back to back': (n) => fill('https://x.test/https://x.test/', n),
  'reference marks': (n) => fill(']:', n),
  'a trusted host, unended': (n) => fill('](https://homes.example.com', n),
};

/** Each pattern under test, and the most steps per input character it may take. */
const PATTERNS: Record<string, { run: (text: string, meter: StepMeter) => unknown; perChar: number }> = {
  'lead: e-mails': { run: (t, m) => extractEmails(t, m), perChar: 3 },
  'lead: phones': { run: (t, m) => extractPhones(t, m), perChar: 9 },
  'lead: listings': { run: (t, m) => extractListings(t, m), perChar: 7 },
  'lead: city': { run: (t, m) => extractCity(t, m), perChar: 3 },
  'lead: budget': { run: (t, m) => extractBudget(t, m), perChar: 20 },
  'lead: bedrooms': { run: (t, m) => extractBedrooms(t, m), perChar: 3 },
  'lead: one message, all facts': { run: (t, m) => withMessage(noFacts(), 'user', t, m), perChar: 45 },
  'slack: Markdown links': { run: (t, m) => convertLinks(t, m), perChar: 2 },
  'slack: Markdown to mrkdwn': { run: (t, m) => markdownToMrkdwn(t, m), perChar: 6 },
  'links: an answer’s links in sight': {
    run: (t, m) => linksInSight(t, trustHosts(['homes.example.com']), { open: true, meter: m }),
    perChar: 12,
  },
  'slack: a user quoted in Markdown': {
    run: (t, m) => markdownToMrkdwn(`*Ada:* ${shownAsText(untrusted(t))}`, m),
    perChar: 6,
  },
};

function steps(run: (text: string, meter: StepMeter) => unknown, text: string): number {
  const meter = new StepMeter();
  run(text, meter);
  return meter.steps;
}

describe('patterns on untrusted text work in linear time (counted in steps)', () => {
  for (const [pattern, { run, perChar }] of Object.entries(PATTERNS)) {
    test(`${pattern}: at most ${perChar} steps a character on 40,000-character adversarial inputs`, () => {
      for (const [name, make] of Object.entries(ADVERSARIAL)) {
        const text = make(N);
        expect(text.length).toBe(N);
        const taken = steps(run, text);
        // The stated bound, in steps.
        expect({ input: name, steps: taken, within: taken <= perChar * N }).toEqual({
          input: name,
          steps: taken,
          within: true,
        });
        // Linear, not merely small: four times the text, at most about four times the steps.
        const quarter = steps(run, make(N / 4));
        expect({ input: name, ratio: taken / Math.max(1, quarter) <= 4.2 }).toEqual({ input: name, ratio: true });
      }
    });
  }

  test('the bot mention Slack prefixes is taken off in one pass, a label or none', () => {
    expect(stripMention('<@U0BOT|bridge> homes in Austin', 'U0BOT')).toBe('homes in Austin');
    expect(stripMention('<@U0BOT>, homes', 'U0BOT')).toBe('homes');
    // `<@U0BOT|` repeated with no `>`: nothing to strip (a pattern whose repeats are bounded).
    const hostile = fill('<@U0BOT|');
    expect(stripMention(hostile, 'U0BOT')).toBe(hostile);
  });

  test('the windows find what a whole-text search finds, once', () => {
    const text = `${fill('x ', 700)} write to ada.l@example.com ${fill('y ', 900)} or bo@mail.example.org.`;
    expect(extractEmails(text)).toEqual(['ada.l@example.com', 'bo@mail.example.org']);
    const phones = `${fill('z ', 511)}(512) 555-0143 ${fill('z ', 1000)}512-555-0199`;
    expect(extractPhones(phones)).toEqual(['(512) 555-0143', '512-555-0199']);
  });
});
