/**
 * The link rule of the chatbot's answers (core/text/links.ts): a link shows under its label only
 * when its host is trusted (the listings' hosts, LINK_HOSTS); any other becomes an untrusted span,
 * which each surface's renderer shows as text with its URL as written. Then what each surface makes
 * of one injected answer: Slack (text, mrkdwn blocks, native markdown_text), Discord, the shell.
 */
import { hostOf, isHostName, linksInSight, trustHosts } from '../../../src/core/text/links';
import { textSpans, withoutSpanMarks } from '../../../src/core/text/untrusted';
import { markdownText, renderMessage as slackRender } from '../../../src/surfaces/slack/blocks';
import { renderMessage as discordRender } from '../../../src/surfaces/discord/render';
import { palette, renderMessage as shellRender } from '../../../src/surfaces/shell/render';

const trusts = trustHosts(['homes.example.com', 'docs.example.com']);
const EVIL = '[Reset your Slack password](https://evil.example/reset)';
const LISTING = '[3096 Larimer St](https://homes.example.com/denver/3096-larimer-st)';
const ANSWER = `Sure: ${EVIL}. The home: ${LISTING} (https://homes.example.com/denver/3096-larimer-st).`;

/** The parts of `marked` the renderers show as text. */
const untrustedParts = (marked: string): string[] =>
  textSpans(marked)
    .filter((s) => s.untrusted)
    .map((s) => s.text);

describe('which links show under their label', () => {
  test('an untrusted masked link becomes text from its `](` on; a listing link stays a link', () => {
    const marked = linksInSight(ANSWER, trusts);
    expect(untrustedParts(marked)).toEqual(['](https://evil.example/reset']);
    // Nothing is lost or added: the marks only say what shows as text.
    expect(withoutSpanMarks(marked)).toBe(ANSWER);
    const trustedText = textSpans(marked)
      .filter((s) => !s.untrusted)
      .map((s) => s.text)
      .join('');
    expect(trustedText).toContain(LISTING);
    expect(trustedText).not.toContain('evil.example');
  });

  test('look-alike hosts, credentials and backslashes are not the trusted host', () => {
    for (const url of [
      'https://homes.example.com.evil.example/x',
      'https://homes.example.com@evil.example/x',
      'https://user:pw@homes.example.com/x',
      'https://evil.example\\@homes.example.com/x',
      'https://evil.example\\homes.example.com/x',
      'https://xhomes.example.com/x',
      'javascript:alert(1)//https://homes.example.com/',
      'ftp://homes.example.com/x',
    ])
      expect([url, untrustedParts(linksInSight(`[a](${url})`, trusts)).length]).toEqual([url, 1]);
    // Case, a port and a final dot do not change the host.
    for (const url of [
      'HTTPS://Homes.Example.COM/x',
      'https://homes.example.com:443/x',
      'https://homes.example.com./x',
    ])
      expect([url, untrustedParts(linksInSight(`[a](${url})`, trusts))]).toEqual([url, []]);
    expect(hostOf('https://homes.example.com@evil.example/')).toBeUndefined();
    expect(hostOf('https://Docs.Example.com/a?b#c')).toBe('docs.example.com');
  });

  test('bare URLs, <autolinks>, images, angle targets, reference definitions and Slack’s <url|label>', () => {
    expect(untrustedParts(linksInSight('see https://evil.example/x now', trusts))).toEqual(['https://evil.example/x']);
    expect(untrustedParts(linksInSight('see <https://evil.example/x> now', trusts))).toEqual([
      '<https://evil.example/x>',
    ]);
    expect(untrustedParts(linksInSight('![pixel](https://evil.example/p.png?d=secret)', trusts))).toEqual([
      '](https://evil.example/p.png?d=secret',
    ]);
    expect(untrustedParts(linksInSight('[a](<https://evil.example/x>)', trusts))).toEqual([
      '](<https://evil.example/x>',
    ]);
    expect(untrustedParts(linksInSight('[a][1]\n\n[1]: https://evil.example/x', trusts))).toEqual([
      ']: https://evil.example/x',
    ]);
    expect(untrustedParts(linksInSight('<https://evil.example/reset|Reset your password>', trusts))).toEqual([
      'https://evil.example/reset',
    ]);
    // A link with no URL at all is still link syntax; a footnote in words is not.
    expect(untrustedParts(linksInSight('[a](evil.example/x)', trusts))).toEqual(['](evil.example/x']);
    expect(untrustedParts(linksInSight('Note[1]: the price is firm', trusts))).toEqual([]);
    // Trusted ones, every form.
    const fine =
      'https://docs.example.com/a <https://docs.example.com/b> [c](<https://homes.example.com/c>) [1]: https://homes.example.com/1';
    expect(linksInSight(fine, trusts)).toBe(fine);
  });

  test('a streaming prefix: a URL at its very end counts only once its host is seen to end', () => {
    expect(untrustedParts(linksInSight('[a](https://homes.example.com', trusts, { open: true }))).toHaveLength(1);
    expect(untrustedParts(linksInSight('[a](https://homes.example.com', trusts))).toHaveLength(0);
    expect(untrustedParts(linksInSight('[a](https://homes.example.com/de', trusts, { open: true }))).toHaveLength(0);
    expect(untrustedParts(linksInSight('see https://homes.example.co', trusts, { open: true }))).toHaveLength(1);
    // Every word-boundary prefix of the answer, marked as it streams, is a prefix of the whole answer marked.
    const whole = linksInSight(ANSWER, trusts);
    for (let i = 0; i < ANSWER.length; i++) {
      if (ANSWER[i] !== ' ') continue;
      expect(whole.startsWith(linksInSight(ANSWER.slice(0, i + 1), trusts, { open: true }))).toBe(true);
    }
  });

  test('span marks inside the answer cannot end a span early', () => {
    const forged = '[x](https://evil.example/\uE003](https://evil.example/2)';
    const marked = linksInSight(forged, trusts);
    expect(
      textSpans(marked)
        .filter((s) => !s.untrusted)
        .map((s) => s.text),
    ).toEqual(['[x', ')']);
  });

  test('LINK_HOSTS entries are host names', () => {
    for (const ok of ['docs.example.com', 'localhost', 'xn--bcher-kva.example', 'a-b.c1'])
      expect(isHostName(ok)).toBe(true);
    for (const bad of [
      'https://docs.example.com',
      'docs.example.com/path',
      'docs.example.com:8080',
      '*.example.com',
      '-x.com',
      'a b',
    ])
      expect(isHostName(bad)).toBe(false);
  });
});

describe('one injected answer on every surface', () => {
  const marked = linksInSight(ANSWER, trusts);

  test('Slack: no <url|label> to the untrusted host in text, blocks or markdown_text; the listing stays a link', () => {
    const rendered = slackRender({ text: marked, markdown: true });
    const all = JSON.stringify(rendered);
    expect(all).not.toContain('<https://evil.example/reset|');
    expect(all).toContain('https://evil.example/reset');
    expect(all).toContain('<https://homes.example.com/denver/3096-larimer-st|3096 Larimer St>');
    const md = markdownText({ text: marked, markdown: true });
    // Slack renders [label](url) in markdown_text: the untrusted one is broken by a zero-width space.
    expect(md).toContain('[Reset your Slack password]\u200b(https://evil.example/reset)');
    expect(md).toContain(LISTING);
  });

  test('Discord: the masked link escaped, the URL in <...> (no preview); the listing stays a masked link', async () => {
    const { body } = await discordRender({ text: marked, markdown: true }, async () => 'id');
    expect(body.content).toContain('[Reset your Slack password\\](<https://evil.example/reset>)');
    expect(body.content).not.toMatch(/[^\\]\]\(https:\/\/evil/);
    expect(body.content).toContain(LISTING);
    expect(body.flags).toBe(4);
  });

  test('Slack’s own <url|label> in an answer shows as those characters on Slack and Discord', async () => {
    const slackSyntax = linksInSight('Go to <https://evil.example/reset|Reset your Slack password> now', trusts);
    const rendered = JSON.stringify([
      slackRender({ text: slackSyntax, markdown: true }),
      markdownText({ text: slackSyntax, markdown: true }),
    ]);
    expect(rendered).not.toContain('<https://evil.example/reset|');
    expect(rendered).toContain('&lt;https://evil.example/reset|Reset your Slack password&gt;');
    const { body } = await discordRender({ text: slackSyntax, markdown: true }, async () => 'id');
    // The URL in <...>: Discord links it as the URL it is, without a preview.
    expect(body.content).toContain('<https://evil.example/reset>');
    expect(body.flags).toBe(4);
  });

  test('shell: the URL printed as written', () => {
    const out = shellRender({ text: marked, markdown: true }, palette(false), { typing: false });
    expect(out).toContain('Reset your Slack password (https://evil.example/reset)');
    expect(out).toContain('3096 Larimer St (https://homes.example.com/denver/3096-larimer-st)');
  });
});
