/**
 * `/chatbot hours` on Discord: registered from the one command catalogue as a subcommand with its
 * option, and answered through gateway dispatches like every command: a server's admin sets its own
 * hours (the office summary shows them), a bad value is refused naming the field and the fix, and
 * `always` clears them.
 */
import { waitFor } from '../../../fakes/wait-for';
import type { InteractionRecord } from '../../../fakes/fake-discord';
import { responseText, startDiscordE2E } from '../../support/discord-e2e';
import { useStarted } from '../../support/server-setup';

describe('Discord e2e: /chatbot hours', () => {
  const e = useStarted(() => startDiscordE2E());

  const hours = (value?: string): InteractionRecord =>
    e.fake.slashCommand({
      name: 'chatbot',
      subcommand: 'hours',
      channelId: e.general.id,
      member: e.admin,
      ...(value === undefined ? {} : { options: [{ name: 'hours', type: 3, value }] }),
    });

  const answer = (rec: InteractionRecord, pattern: RegExp): Promise<string> =>
    waitFor(
      () => {
        const text = responseText(e, rec);
        return pattern.test(text) ? text : undefined;
      },
      `an answer matching ${pattern}`,
      10_000,
      e.fake.changes,
    );

  test('registered with its option; sets, shows, refuses bad input and clears', async () => {
    const registered = [...e.fake.commands.values()].flat().find((c) => c.name === 'chatbot');
    const subs = (registered?.options ?? []) as Array<{ name: string; options?: Array<{ name: string }> }>;
    const sub = subs.find((o) => o.name === 'hours');
    expect(sub?.options?.map((o) => o.name)).toEqual(['hours']);

    expect(await answer(hours('Mon-Fri 08:30-16:30, Sat 10:00-14:00'), /Office hours set/)).toContain(
      'Office hours set: Mon-Fri 08:30-16:30, Sat 10:00-14:00.',
    );
    expect(await answer(hours(), /office hours/)).toContain(
      'Mon-Fri 08:30-16:30, Sat 10:00-14:00 (set with /chatbot hours)',
    );
    const bad = await answer(hours('weekdays 9-5'), /Office hours:/);
    expect(bad).toContain('Office hours: "weekdays 9-5" is not a day range and hours: write it like');
    expect(bad).toContain('For example /chatbot hours Mon-Fri 09:00-17:00');
    expect(await answer(hours('always'), /always open/)).toContain('Always open (set hours with /chatbot hours)');
  }, 30_000);
});
