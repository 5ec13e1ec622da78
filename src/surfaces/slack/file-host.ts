/** Which hosts may receive the Slack bot token with a file download. */

/** Slack's own file hosts. */
const SLACK_HOSTS = /(^|\.)(slack\.com|slack-edge\.com|slack-files\.com)$/i;

/**
 * True when `url` is https on one of Slack's hosts, or on the host of SLACK_API_URL (a proxy or, in
 * tests, the fake), so the token never goes to a host a file object merely names.
 */
export function slackFileHost(url: string, slackApiUrl: string | undefined): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.protocol === 'https:' && SLACK_HOSTS.test(target.hostname) && target.port === '') return true;
  if (!slackApiUrl) return false;
  try {
    return new URL(slackApiUrl).host === target.host && (target.protocol === 'https:' || target.protocol === 'http:');
  } catch {
    return false;
  }
}
