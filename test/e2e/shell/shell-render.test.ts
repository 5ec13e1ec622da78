/**
 * The shell as a person meets it, through a pseudo-terminal (`script` from util-linux gives the
 * bridge a real TTY) and through a pipe: chat markup styled on the terminal and plain in the pipe,
 * the analytics chart written to ./data/analytics-<from>-<to>.png, `/listing show` in full, and Tab
 * completing command names.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { buildBridge, shellForDescribe } from '../../support/shell-bridge';

const BOLD = '\u001b[1m';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Escape sequences are what the test looks for: built from strings so no control character sits in a regex literal.
const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]|${ESC}\\][^${BEL}]*${BEL}`, 'g');

const today = () => new Date().toISOString().slice(0, 10);

// The bridge runs from a scratch directory (./data is the run's own): build it once, as npm start would.
beforeAll(buildBridge, 180_000);

describe('through a pseudo-terminal', () => {
  // shellForDescribe (shell-bridge.ts): the built bridge in a scratch directory, through useStarted.
  const run = shellForDescribe('terminal', 'bridge-pty-');

  const press = (keys: string) => run.session.child.stdin.write(keys);

  test('markup is styled (bold, links underlined), Tab completes /analytics, the chart lands in ./data', async () => {
    const { session } = run;
    await session.waitFor((o) => o.includes('chatbot-bridge shell'), 'the banner', 120_000);

    press('/ask What is the capital of France?\r');
    await session.waitFor((o) => o.replace(ANSI, '').includes('Talk to a human above'), 'the no-answer note');
    // *Talk to a human* arrives as markup: shown bold, never with its asterisks.
    expect(session.output).toContain(`${BOLD}Talk to a human`);
    expect(session.output).not.toContain('*Talk to a human*');

    const before = session.output.length;
    press('/new\r');
    press('What homes are for rent in Denver under 3000 a month?\r');
    await session.waitFor(
      (o) => o.slice(before).replace(ANSI, '').includes('Would you like more details'),
      'the Denver answer',
    );
    const answer = session.output.slice(before);
    // The link's label is underlined and its address shown; no Markdown brackets reach the screen.
    expect(answer).toContain('\u001b[4m6304 Tennyson St, Denver, CO');
    expect(answer.replace(ANSI, '')).toContain('(https://homes.example.com/denver/');
    expect(answer).not.toContain('](https://');

    // Tab completes the command name ("/analy" -> "/analytics "), Enter runs it.
    const beforeChart = session.output.length;
    press('/analy\t');
    await session.waitFor(
      (o) => o.slice(beforeChart).replace(ANSI, '').includes('/analytics'),
      'the completed command',
    );
    press('\r');
    const saved = await session.waitFor(
      (o) =>
        /saved to \.\/data\/(analytics-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.png)/.exec(
          o.slice(beforeChart).replace(ANSI, ''),
        )?.[1],
      'the chart path',
    );
    expect(saved).toMatch(new RegExp(`^analytics-\\d{4}-\\d{2}-\\d{2}-${today()}\\.png$`));
    const file = join(run.dir, 'data', saved);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file).subarray(0, 8).equals(PNG)).toBe(true);

    press('/quit\r');
    expect(await session.exited).toBe(0);
  }, 240_000);
});

describe('through a pipe', () => {
  const run = shellForDescribe('pipe', 'bridge-pipe-');

  test('plain text (no markup, no control sequences), /listing show in full, the chart path printed', async () => {
    const { session } = run;
    await session.waitFor((o) => o.includes('chatbot-bridge shell'), 'the banner', 120_000);

    session.type('/ask What is the capital of France?');
    await session.waitFor((o) => o.includes('Talk to a human above'), 'the no-answer note');
    expect(session.output).toContain('Press Talk to a human above');

    session.type('/new');
    session.type('How much is 3096 Larimer St?');
    await session.waitFor((o) => o.includes('$670,000'), 'the Larimer St answer');
    expect(session.output).toContain('3096 Larimer St, Denver, CO 80201 (https://homes.example.com/denver/');

    const beforeShow = session.output.length;
    session.type('/listing show mls:DEN240007');
    await session.waitFor((o) => o.slice(beforeShow).includes('front.jpg'), 'the listing in full');
    const shown = session.output.slice(beforeShow);
    for (const label of [
      'Price',
      'Beds / baths',
      'Year built',
      'Parking',
      'Days on market',
      'Neighborhood',
      'Description',
      'Link',
    ]) {
      expect(shown).toMatch(new RegExp(`^${label.replace('/', '\\/')}\\s+\\S`, 'm'));
    }
    for (const photo of ['front.jpg', 'kitchen.jpg', 'living.jpg'])
      expect(shown).toContain(`https://images.example.com/listings/den240007/${photo}`);
    expect(shown).toContain('For sale');
    expect(shown).not.toMatch(/ID \d|for_sale|PreOnMarket/);
    // Next steps: a viewing (a handoff naming the listing) and, for admins, Edit.
    await session.waitFor(
      (o) => /\[1\] Ask about a viewing\s+\[2\] Edit/.test(o.slice(beforeShow)),
      'the listing buttons',
    );
    session.type('/press 1');
    await session.waitFor(
      (o) => o.slice(beforeShow).includes('Reason: Viewing request: 3096 Larimer St (MLS DEN240007)'),
      'the viewing ticket',
    );

    const beforeChart = session.output.length;
    session.type('/analytics');
    const saved = await session.waitFor(
      (o) => /saved to (\.\/data\/analytics-[\d-]+\.png)/.exec(o.slice(beforeChart))?.[1],
      'the chart path',
    );
    expect(existsSync(join(run.dir, saved))).toBe(true);

    session.child.stdin.end();
    expect(await session.exited).toBe(0);
    expect(session.output).not.toMatch(ANSI);
    expect(session.output).not.toMatch(/\*Talk to a human\*|\]\(https?:/);
  }, 240_000);
});
