/** jest's `slack-oauth` project: every Slack harness of the test file starts the bridge in OAuth mode (slack-mode.ts). */
process.env.SLACK_E2E_MODE = 'oauth';
