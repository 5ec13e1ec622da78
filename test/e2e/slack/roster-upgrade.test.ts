/**
 * An upgrade keeps every away mark: the agent roster was one global list before each workspace had
 * its own (`agentroster:<surface>:<id>`). A one-workspace deployment's roster of before is its
 * workspace's: Bea, marked away then, is shown away in the queue and passed by for offers, her mark
 * moves into the workspace's part of the store, and another surface's entries are left for its own
 * channel's server. Her `/handoff back` then counts.
 */
import { waitFor } from '../../../fakes/slack-requests';
import { ADMIN, askForHuman, HANDOFF_CHANNEL, startSlackE2E } from '../../support/slack-e2e';
import { useStarted } from '../../support/server-setup';
import { ephemeralTo } from '../../support/slack-flows';

const USERS = 'C0LEADS';
const BEA = 'U0AG2';
const CY = 'U0AG3';

/** A roster entry as the bridge stored it before tenants. */
const entryOfBefore = (id: string, name: string, surface: string) => ({
  actor: { id, name, isAdmin: false },
  surface,
  away: true,
  joinedAt: 1_000,
  changedAt: 1_000,
});

describe('Slack: the global roster of before is the one workspace’s', () => {
  const e = useStarted(async () => {
    const started = await startSlackE2E({
      env: { HANDOFF_ASSIGN: 'round-robin', HANDOFF_OFFER_S: '120' },
      fake: { users: { U0USER1: 'Ada Lovelace', [ADMIN]: 'Alan Admin', [BEA]: 'Bea Agent', [CY]: 'Cy Agent' } },
    });
    started.fake.channelMembers[HANDOFF_CHANNEL] = [CY, BEA];
    await started.app.store.set(`agentroster:slack:${BEA}`, entryOfBefore(BEA, 'Bea Agent', 'slack'));
    await started.app.store.set('agentroster:discord:4242', entryOfBefore('4242', 'Dora Discord', 'discord'));
    return started;
  });

  const queue = async (): Promise<string> => {
    const from = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'queue', { user: ADMIN, channel: USERS });
    return (await ephemeralTo(e.fake, ADMIN, /Handoff queue/, from)).text;
  };

  test('Bea, away before the upgrade, is away after it, until she says /handoff back', async () => {
    const q = await queue();
    expect(q).toContain('Away: Bea Agent');
    expect(q).not.toContain('Dora');

    // Members in id order: Bea (away), Cy.
    const { ticket } = await askForHuman(e, 'U0USER1', USERS, 'Homes in Austin?');
    const first = await waitFor(
      () => e.fake.replies(HANDOFF_CHANNEL, ticket.ts).find((m) => /^Offered to <@\w+>/.test(m.text)),
      'the first offer',
    );
    expect(first.text).toMatch(new RegExp(`^Offered to <@${CY}>`));

    // Her mark moved into the workspace's part; the Discord one stays for Discord's channel.
    expect(await e.app.store.keys('agentroster:')).toEqual(['agentroster:discord:4242']);
    expect(await e.app.store.get(`t:slack:${e.fake.team}:agentroster:slack:${BEA}`)).toMatchObject({ away: true });

    const from = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'back', { user: BEA, channel: HANDOFF_CHANNEL });
    await ephemeralTo(e.fake, BEA, /^You are back/, from);
    expect(await queue()).not.toContain('Away:');
  }, 60_000);
});
