/** The round-robin roster: stored availability, the turn going round the available agents in order. */
import { SqliteStore } from '../../../../src/state/sqlite-store';
import { Roster } from '../../../../src/core/handoff/hours/roster';
import { tenantFor, tenantStore } from '../../../../src/state/tenant-store';

describe('round-robin roster', () => {
  const store = new SqliteStore(':memory:');
  let clock = 1_000;
  const roster = new Roster(tenantStore(store, tenantFor('slack', 'T1')), () => clock++);
  const ann = { id: 'A1', name: 'Ann', isAdmin: false };
  const bob = { id: 'A2', name: 'Bob', isAdmin: false };
  const cat = { id: 'A3', name: 'Cat', isAdmin: false };
  afterAll(() => store.close());

  it('goes round the available agents in the order they joined, skipping the away one', async () => {
    await roster.setAway('slack', ann, false);
    await roster.join('slack', bob);
    await roster.setAway('slack', cat, false);
    await roster.setAway('slack', bob, true);
    const names = [];
    for (let i = 0; i < 4; i++) names.push((await roster.next('slack'))?.actor.name);
    expect(names).toEqual(['Ann', 'Cat', 'Ann', 'Cat']);
    // Joining again (a claim) keeps the stored availability.
    await roster.join('slack', bob);
    expect((await roster.entries()).map((e) => [e.actor.name, e.away])).toEqual([
      ['Ann', false],
      ['Bob', true],
      ['Cat', false],
    ]);
    // Back: Bob's turn comes after Ann's.
    await roster.setAway('slack', bob, false);
    expect((await roster.next('slack'))?.actor.name).toBe('Ann');
    expect((await roster.next('slack'))?.actor.name).toBe('Bob');
    // A re-offer goes to the one after the offered agent, never back to one already offered while others remain.
    const after = (await roster.entries()).find((e) => e.actor.name === 'Cat')!.key;
    const annKey = (await roster.entries()).find((e) => e.actor.name === 'Ann')!.key;
    expect((await roster.next('slack', { after, skip: [annKey] }))?.actor.name).toBe('Bob');
    // Another surface's agents are not offered this surface's tickets.
    expect(await roster.next('discord')).toBeUndefined();
    // Another tenant's roster is its own: none of these agents, and its own turn.
    const other = new Roster(tenantStore(store, tenantFor('slack', 'T2')), () => clock++);
    expect(await other.entries()).toEqual([]);
    expect(await other.next('slack')).toBeUndefined();
  });
});
