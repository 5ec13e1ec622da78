import { InteractionContextType } from 'discord.js';
import { COMMAND_SPECS } from '../../../src/core/commands/catalogue';
import { slashCommandDefinitions } from '../../../src/surfaces/discord/commands';

describe('Discord slash command registration scopes', () => {
  test('guild registration holds every command of the catalogue, none offered in DMs', () => {
    const defs = slashCommandDefinitions('guild');
    expect(defs.map((d) => d.name)).toEqual(COMMAND_SPECS.map((s) => s.name));
    for (const d of defs) expect(d.dm_permission).toBe(false);
  });

  test('the DM registration holds only the conversation commands, limited to the bot’s DMs, with the grammar’s options', () => {
    const defs = slashCommandDefinitions('dm');
    expect(defs.map((d) => d.name)).toEqual(['ask', 'handoff']);
    expect(COMMAND_SPECS.filter((s) => s.directMessages).map((s) => s.name)).toEqual(['ask', 'handoff']);
    for (const d of defs) expect(d.contexts).toEqual([InteractionContextType.BotDM]);
    const guildAsk = slashCommandDefinitions('guild').find((d) => d.name === 'ask');
    expect(defs.find((d) => d.name === 'ask')?.options).toEqual(guildAsk?.options);
  });

  test('a global registration offers every command in guilds and the conversation commands in DMs too', () => {
    const defs = slashCommandDefinitions('global');
    expect(defs.map((d) => d.name)).toEqual(COMMAND_SPECS.map((s) => s.name));
    for (const d of defs) {
      const expected = COMMAND_SPECS.find((s) => s.name === d.name)?.directMessages
        ? [InteractionContextType.Guild, InteractionContextType.BotDM]
        : [InteractionContextType.Guild];
      expect(d.contexts).toEqual(expected);
    }
  });
});
