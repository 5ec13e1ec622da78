/**
 * An org-wide install (Enterprise Grid): its workspaces share one connection, the enterprise's. A
 * workspace admin of one of them (users.info: is_admin, not is_org_admin) may not connect or
 * disconnect it for the whole org: `/chatbot connect` and `/chatbot disconnect` answer one line, a
 * submitted connect form saves nothing. An org admin or owner (is_org_admin / is_org_owner) may.
 */
import { waitFor } from '../../../fakes/slack-requests';
import { ORG_ONLY } from '../../../src/core/commands/connect';
import { useStarted } from '../../support/server-setup';
import { install, startOAuthE2E } from '../../support/slack-oauth';

const ORG = 'E0GRID';
const TEAM = 'T0GRIDA';
const WORKSPACE_ADMIN = 'U0WSADMIN';
const ORG_ADMIN = 'U0ORGADMIN';

describe('Slack OAuth: an org-wide install’s connection is the org admins’ to change', () => {
  const e = useStarted(() => startOAuthE2E());
  /** The store's connection record of the enterprise (wherever the store keeps it). */
  const orgConnection = async (): Promise<string[]> =>
    (await e.app.store.keys('')).filter((k) => k.includes('connection') && k.includes(ORG));

  test('a workspace admin is refused connect and disconnect; an org admin connects', async () => {
    e.fake.workspaces.addOrgTeams(ORG, TEAM);
    e.fake.workspaces.addChannels(TEAM, 'C0GRIDA');
    e.fake.workspaceAdmins.add(WORKSPACE_ADMIN);
    e.fake.orgAdmins.add(ORG_ADMIN);
    const org = await install(e, { enterprise: ORG, enterpriseName: 'Grid Org', user: ORG_ADMIN });
    const inTeam = org.driver.inTeam(TEAM);
    const replyTo = async (user: string, args: string): Promise<string> => {
      const before = e.fake.ephemerals.length;
      await inTeam.command('/chatbot', args, { user, channel: 'C0GRIDA' });
      return (
        await waitFor(
          () => e.fake.ephemerals.slice(before).find((x) => x.user === user && x.channel === 'C0GRIDA'),
          `the reply to /chatbot ${args}`,
        )
      ).text;
    };

    // The org admin opens the form (the workspace admin's attempt is answered with the one line).
    const views = e.fake.views.length;
    expect(await replyTo(WORKSPACE_ADMIN, 'connect')).toBe(ORG_ONLY);
    expect(e.fake.views.length).toBe(views);
    await inTeam.command('/chatbot', 'connect', { user: ORG_ADMIN, channel: 'C0GRIDA' });
    const form = await waitFor(() => e.fake.views[views], 'the connect form of the org admin');

    // The workspace admin submits that form: nothing is saved.
    const { secretKey, sessionKey } = e.service.credentials;
    const values = { chatbotId: e.service.chatbotId, secretKey, sessionKey };
    const refused = await inTeam.submitView(form, values, { user: WORKSPACE_ADMIN });
    expect(JSON.stringify(refused.json)).toContain('only an admin or owner of the org');
    expect(await orgConnection()).toEqual([]);

    // The org admin's is saved, for the enterprise; the workspace admin cannot disconnect it.
    const saved = await inTeam.submitView(form, values, { user: ORG_ADMIN });
    expect(saved.json).toBeUndefined();
    await waitFor(async () => (await orgConnection()).length === 1, 'the org’s connection saved');
    expect(await replyTo(WORKSPACE_ADMIN, 'disconnect')).toBe(ORG_ONLY);
    expect(await orgConnection()).toHaveLength(1);
    expect(await replyTo(ORG_ADMIN, 'disconnect')).toContain('Disconnected');
  });

  test('App Home: an org admin or owner (no workspace role) gets the admins’ queue; a member does not', async () => {
    e.fake.workspaces.addOrgTeams(ORG, 'T0GRIDB');
    e.fake.orgAdmins.add('U0ORGOWNER');
    const org = await install(e, { enterprise: ORG, enterpriseName: 'Grid Org', user: ORG_ADMIN });
    const inTeam = org.driver.inTeam('T0GRIDB');
    const homeOf = async (user: string): Promise<string> => {
      const before = e.fake.homeViews.length;
      await inTeam.event({
        type: 'app_home_opened',
        user,
        channel: `D0${user}`,
        tab: 'home',
        event_ts: `${Date.now() / 1000}`,
      });
      return JSON.stringify(
        (await waitFor(() => e.fake.homeViews.slice(before).find((v) => v.user === user), `the App Home of ${user}`))
          .view,
      );
    };
    expect(await homeOf('U0ORGOWNER')).toContain('Handoff queue');
    const member = await homeOf('U0MEMBER');
    expect(member).not.toContain('Handoff queue');
    expect(member).toContain('for members of the handoff channel and for admins');
  });
});
