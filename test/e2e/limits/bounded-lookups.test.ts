/**
 * Lookups by id are bounded: the service cannot filter by id, so the catalogue is read page by page,
 * and lookups share that reading. However many lookups come (found or not, at once or one after
 * another), each page is fetched once per reading; a miss on a catalogue read to its end costs none.
 */
import { responseText, startDiscordE2E } from '../../support/discord-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';

const STRING = 3;

describe('Discord e2e: /listing show id: is bounded', () => {
  const e = useStarted(() => startDiscordE2E({ fragmentDelayMs: 2 }));

  const listCalls = (): number => e.serviceRequests.filter((r) => r.url.includes('RealEstateList')).length;

  function show(id: string) {
    return e.fake.slashCommand({
      name: 'listing',
      subcommand: 'show',
      channelId: e.general.id,
      member: e.user,
      options: [{ name: 'id', type: STRING, value: id }],
    });
  }

  test('a flood of lookups, found and missing, reads each catalogue page once', async () => {
    const existing = e.service.context.db.prepare('SELECT id FROM listings ORDER BY id LIMIT 1').get() as
      | { id: number | string }
      | undefined;
    expect(existing).toBeDefined();
    const before = listCalls();
    // Twelve at once, half for ids that do not exist.
    const recs = Array.from({ length: 12 }, (_, i) => show(i % 2 === 0 ? String(existing!.id) : `9999${i}`));
    const answers: string[] = [];
    for (const rec of recs) {
      answers.push(await waitFor(() => responseText(e, rec) || undefined, 'a lookup answered', 10_000, e.fake.changes));
    }
    // Every miss says so; every hit does not.
    recs.forEach((_, i) => {
      if (i % 2 === 1) expect(answers[i]).toMatch(new RegExp(`No listing matches id:9999${i}`));
      else expect(answers[i]).not.toMatch(/No listing matches/);
    });
    const pages = listCalls() - before;
    // The demo catalogue is one page of 50 at most: one reading, one call, for all twelve.
    expect(pages).toBe(1);

    // Another miss right after: the reading is complete and fresh, so no call at all.
    const again = show('12345678');
    const miss = await waitFor(() => responseText(e, again) || undefined, 'the next miss', 10_000, e.fake.changes);
    expect(miss).toMatch(/No listing matches id:12345678/);
    expect(listCalls() - before).toBe(1);
  });
});
