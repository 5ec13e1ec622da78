/**
 * Slack's renderers and untrusted spans: a user's `[label](url)` inside core's Markdown is never a
 * masked link: mrkdwn blocks show its characters (Slack's mrkdwn has no such links), `text` shows
 * them as typed, and `markdown_text` (which Slack renders as Markdown) gets its `](` broken by a
 * zero-width space. The chatbot's own Markdown keeps its links.
 */
import { shownAsText, untrusted } from '../../../src/core/text/untrusted';
import { renderMessage } from '../../../src/surfaces/slack/blocks';
import { markdownToMrkdwn } from '../../../src/surfaces/slack/mrkdwn';
import { slackMarkdownText } from '../../../src/surfaces/slack/safe-text';

const LINK = '[Reset your Slack password](https://evil.example/reset)';

describe('Slack: untrusted spans in core Markdown', () => {
  const text = `*Ada:* ${shownAsText(untrusted(LINK))} and **see** [ours](https://good.example/x)`;

  test('mrkdwn: the user’s link is text, ours is a link, markup outside the span still converts', () => {
    expect(markdownToMrkdwn(text)).toBe(`*Ada:* ${LINK} and *see* <https://good.example/x|ours>`);
  });

  test('a span over several lines, a code fence and a heading keep working around it', () => {
    const md = `# Title\n> ${shownAsText(untrusted(`one ${LINK}\ntwo **x**`))}\n\`[a](https://a.example)\``;
    expect(markdownToMrkdwn(md)).toBe(`*Title*\n> one ${LINK}\ntwo **x**\n\`[a](https://a.example)\``);
  });

  test('blocks and text of a rendered message: no masked link, the marks gone', () => {
    const rendered = renderMessage({ text, markdown: true });
    const all = JSON.stringify(rendered);
    expect(all).not.toContain('|Reset your Slack password>');
    expect(all).not.toMatch(/[\uE000-\uE003]/);
    expect(rendered.text).toContain(LINK);
  });

  test('markdown_text: the user’s link syntax broken, the chatbot’s kept', () => {
    expect(slackMarkdownText(text)).toBe(
      `*Ada:* [Reset your Slack password]\u200b(https://evil.example/reset) and **see** [ours](https://good.example/x)`,
    );
    expect(slackMarkdownText(LINK)).toBe(LINK);
  });
});
