/**
 * The one place Slack text is made safe. Everything the bridge sends to Slack (`text`, mrkdwn and
 * markdown in blocks, native `markdown_text`, ephemerals, response_url bodies) passes through here:
 * untrusted words (users, the chatbot service, listings, other surfaces) have Slack's control
 * characters escaped, so `<!channel>`, `<@U…>`, `<#C…>` or `<url|label>` in them are shown word for
 * word (Slack displays `&lt;` `&gt;` `&amp;` as `<` `>` `&`) and never ping or link. The bridge's
 * own mentions are tokens (see mention-token.ts) turned into real `<@U…>` after escaping.
 */
import { textSpans, withoutSpanMarks } from '../../core/text/untrusted';
import { mentionToken, restoreMentions } from '../mention-token';

/**
 * Slack's three control characters, escaped. A `>` that starts a line is Markdown's quote marker and
 * stays (with every `<` escaped nothing is open for it to close).
 */
export function escapeSlack(s: string): string {
  return escapeAll(s).replace(/(^|\n)([ \t]*)&gt;/g, '$1$2>');
}

/** Every `&`, `<` and `>` escaped: for text inside a link or a mention, where no quote can start. */
export function escapeAll(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** What a user typed, as Slack sends it (`&lt;` for `<`), back to the characters they typed. */
export function unescapeSlack(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The bridge's own mention of a Slack user: real once rendered, unforgeable in untrusted text. */
export function slackMention(userId: string): string {
  return mentionToken(userId);
}

/** Turns the bridge's mention tokens in escaped text into real mentions (a user group: `<!subteam^S…>`). */
export function withMentions(escaped: string): string {
  return restoreMentions(escaped, (id, group) => (group && id.startsWith('S') ? `<!subteam^${id}>` : `<@${id}>`)).text;
}

/**
 * Untrusted text as Slack plain `text`: escaped, with the bridge's mentions real. Slack's `text` is
 * mrkdwn, which has no `[label](url)` links, so an untrusted span's characters show as typed.
 */
export function slackText(s: string): string {
  return withMentions(escapeSlack(withoutSpanMarks(s)));
}

/**
 * Text for Slack's Markdown fields (native `markdown_text`): escaped like `text`, and since Slack
 * renders `[label](url)` there, the link syntax of untrusted spans is broken by a zero-width space
 * after `]` (before `(`, and before a reference definition's `:`): the label and the URL show as
 * the text they are. The chatbot's answers keep the links core/text/links.ts trusts; the others
 * come here as untrusted spans.
 */
export function slackMarkdownText(s: string): string {
  const shown = textSpans(s)
    .map((span) => (span.untrusted ? escapeSlack(span.text).replace(/\](?=[(:])/g, ']\u200b') : escapeSlack(span.text)))
    .join('');
  return withMentions(shown);
}

/**
 * Whether `url` may become a Slack link: http(s) only, and nothing that could end the link or start
 * another (`<`, `>`, `|`, whitespace; checked on the raw URL, before escaping).
 */
export function linkableUrl(url: string): boolean {
  return /^https?:\/\/[^\s<>|]+$/i.test(url);
}

/** A link with an escaped label, or (for a URL that may not be a link) the label and the URL as text. */
export function slackLink(url: string | undefined, label: string): string {
  const shown = escapeAll(label);
  if (!url) return shown;
  if (!linkableUrl(url)) return `${shown} (${escapeSlack(url)})`;
  return `<${url.replace(/&/g, '&amp;')}|${shown}>`;
}
