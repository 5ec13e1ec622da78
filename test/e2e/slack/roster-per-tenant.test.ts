/**
 * Round-robin per office: two workspaces installed by OAuth, each with its own handoff channel and
 * agents (HANDOFF_ASSIGN=round-robin, an injected clock). An agent of A says /handoff away in A's
 * channel: A's /handoff queue and App Home name them as away, B's name nobody of A's; A's tickets are
 * offered past them, first and after HANDOFF_OFFER_S; and A's offers do not move B's turn (B's
 * second ticket goes to B's next agent, not back to its first). A uninstalling takes its roster with
 * its part of the store; B's stays.
 */
import { button } from '../../../fakes/slack-blocks';
import { type SlackDriver, waitFor } from '../../../fakes/slack-requests';
import { saveOffice } from '../../../src/core/tenants/offices';
import { tenantFor } from '../../../src/state/tenant-store';
import { useStarted } from '../../support/server-setup';
import { ADMIN } from '../../support/slack-e2e';
import { pressTalkToHuman } from '../../support/slack-flows';
import { install, startOAuthE2E } from '../../support/slack-oauth';

const [TEAM_A, TEAM_B] = ['T0ROSTA', 'T0ROSTB'];
const [ASK_A, DESK_A, ASK_B, DESK_B] = ['C0ASKA', 'C0DESKA', 'C0ASKB', 'C0DESKB'];
// A's agents: Alma (who goes away), Abe, Ari; B's: Bo, Bix.
const [ALMA, ABE, ARI, BO, BIX] = ['U0ALMA', 'U0ABE', 'U0ARI', 'U0BO', 'U0BIX'];

describe('Slack OAuth e2e: each workspace its own round-robin roster', () => {
  let offset = 0;
  const e = useStarted(() =>
    startOAuthE2E({ env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' }, now: () => Date.now() + offset }),
  );
  let a: SlackDriver;
  let b: SlackDriver;

  beforeAll(async () => {
    e.fake.workspaces.addChannels(TEAM_A, ASK_A, DESK_A);
    e.fake.workspaces.addChannels(TEAM_B, ASK_B, DESK_B);
    for (const [id, name] of [
      [ALMA, 'Alma Away'],
      [ABE, 'Abe Agent'],
      [ARI, 'Ari Agent'],
      [BO, 'Bo Agent'],
      [BIX, 'Bix Agent'],
    ] as const)
      e.fake.setUser(id, name);
    e.fake.channelMembers[DESK_A] = [ALMA, ABE, ARI];
    e.fake.channelMembers[DESK_B] = [BO, BIX];
    // Alma also administers A's workspace: an agent by any reading of who.ts, whichever channel it asks.
    e.fake.workspaceAdmins.add(ALMA);
    a = (await install(e, { team: TEAM_A, teamName: 'Office A', user: 'U0USER1' })).driver;
    b = (await install(e, { team: TEAM_B, teamName: 'Office B', user: 'U0USER2' })).driver;
    // Each office's own handoff channel (what /chatbot connect writes).
    await saveOffice({ store: e.app.store }, tenantFor('slack', TEAM_A), { handoffChannel: DESK_A });
    await saveOffice({ store: e.app.store }, tenantFor('slack', TEAM_B), { handoffChannel: DESK_B });
  }, 60_000);

  /** `user` asks in `channel` and presses "Talk to a human": the ticket message in `desk`. */
  async function ticketOf(d: SlackDriver, user: string, channel: string, desk: string, question: string) {
    await pressTalkToHuman(e.fake, d, user, channel, question);
    return waitFor(
      () => e.fake.channelMessages(desk).find((m) => m.text.includes(question) && button(m, 'Claim')),
      `the ticket of "${question}" in ${desk}`,
    );
  }

  /** The agents a ticket was offered to, in order. */
  const offers = (desk: string, ts: string): string[] =>
    e.fake
      .replies(desk, ts)
      .map((m) => /^Offered to <@(\w+)> \(round-robin\)/.exec(m.text)?.[1])
      .filter((id): id is string => id !== undefined);
  const offered = (desk: string, ts: string, n: number) =>
    waitFor(() => offers(desk, ts).length >= n && offers(desk, ts), `${n} offer(s) of ${ts} in ${desk}`);

  /** ADMIN's /handoff queue in `channel` of the workspace `d` drives. */
  async function queue(d: SlackDriver, channel: string): Promise<string> {
    const from = e.fake.ephemerals.length;
    await d.command('/handoff', 'queue', { user: ADMIN, channel });
    const q = await waitFor(
      () => e.fake.ephemerals.slice(from).find((m) => m.channel === channel && m.text.includes('Handoff queue')),
      `the queue in ${channel}`,
    );
    return q.text;
  }

  /** ADMIN's App Home as `team` publishes it. */
  async function home(d: SlackDriver, team: string): Promise<string> {
    const from = e.fake.calls.length;
    await d.event({ type: 'app_home_opened', user: ADMIN, tab: 'home' });
    const published = await waitFor(
      () =>
        e.fake.calls
          .slice(from)
          .find((c) => c.method === 'views.publish' && c.team === team && c.args.user_id === ADMIN),
      `the App Home published in ${team}`,
    );
    return JSON.stringify(published.args.view);
  }

  test("A's away agent shows in A's queue and App Home only, and A's offers pass them by", async () => {
    const from = e.fake.ephemerals.length;
    await a.command('/handoff', 'away', { user: ALMA, channel: DESK_A });
    const away = await waitFor(
      () => e.fake.ephemerals.slice(from).find((m) => m.user === ALMA && m.channel === DESK_A),
      "Alma's answer",
    );
    expect(away.text).toMatch(/^You are away/);

    expect(await queue(a, ASK_A)).toContain('Away: Alma Away');
    const inB = await queue(b, ASK_B);
    expect(inB).toContain('Handoff queue');
    expect(inB).not.toContain('Alma');
    expect(inB).not.toContain('Away:');
    expect(await home(a, TEAM_A)).toContain('Away: Alma Away');
    const homeB = await home(b, TEAM_B);
    expect(homeB).toContain('Handoff queue');
    expect(homeB).not.toContain('Alma');

    // A's ticket (members in id order: Abe, Alma, Ari): offered to Abe, then after HANDOFF_OFFER_S to
    // Ari, past Alma, who is away.
    const ticketA = await ticketOf(a, 'U0USER1', ASK_A, DESK_A, 'Homes in Austin?');
    expect(await offered(DESK_A, ticketA.ts, 1)).toEqual([ABE]);
    offset += 121_000;
    await e.app.bridge.handoffs.sweepUnclaimed();
    expect(await offered(DESK_A, ticketA.ts, 2)).toEqual([ABE, ARI]);
  }, 60_000);

  test("B's turn goes round B's agents whatever A's offers do", async () => {
    const b1 = await ticketOf(b, 'U0USER2', ASK_B, DESK_B, 'Condos in Denver?');
    // B's members in id order: Bix, Bo.
    expect(await offered(DESK_B, b1.ts, 1)).toEqual([BIX]);
    // An offer in A between B's two tickets.
    const a2 = await ticketOf(a, 'U0USER1', ASK_A, DESK_A, 'Lofts in Austin?');
    expect((await offered(DESK_A, a2.ts, 1))[0]).not.toBe(ALMA);
    const b2 = await ticketOf(b, 'U0USER2', ASK_B, DESK_B, 'Condos in Boulder?');
    expect(await offered(DESK_B, b2.ts, 1)).toEqual([BO]);
  }, 60_000);

  test("A uninstalls: its roster and turn go with its records, B's stay", async () => {
    const rosterKeys = (team: string) => e.app.store.keys(`t:slack:${team}:agentroster`);
    expect((await rosterKeys(TEAM_A)).length).toBeGreaterThan(0);
    const ofB = await rosterKeys(TEAM_B);
    expect(ofB).toContain(`t:slack:${TEAM_B}:agentroster-turn`);
    e.fake.workspaces.revoke(TEAM_A);
    expect((await a.event({ type: 'app_uninstalled' })).status).toBe(200);
    await waitFor(async () => (await rosterKeys(TEAM_A)).length === 0, "A's roster deleted");
    expect(await rosterKeys(TEAM_B)).toEqual(ofB);
  }, 60_000);
});
