import { ApplicationIntegrationType, InteractionContextType } from 'discord.js';
import { COMMAND_SPECS } from '../../../src/core/commands/catalogue';
import { slashCommandDefinitions } from '../../../src/surfaces/discord/commands';

const GUILD_INSTALL = ApplicationIntegrationType.GuildInstall;
const USER_INSTALL = ApplicationIntegrationType.UserInstall;
const { Guild, BotDM, PrivateChannel } = InteractionContextType;
const USER_INSTALLABLE = ['ask', 'listings'];

describe('Discord slash command registration scopes', () => {
  test('the catalogue says which commands a person may install for themselves: /ask and /listings', () => {
    expect(COMMAND_SPECS.filter((s) => s.userInstall).map((s) => s.name)).toEqual(USER_INSTALLABLE);
  });

  test('guild registration holds every command but the user-installable ones (global beside it), none offered in DMs', () => {
    const defs = slashCommandDefinitions('guild');
    expect(defs.map((d) => d.name)).toEqual(
      COMMAND_SPECS.filter((s) => !USER_INSTALLABLE.includes(s.name)).map((s) => s.name),
    );
    for (const d of defs) expect(d.dm_permission).toBe(false);
  });

  test('beside a guild registration: /ask and /listings for both installs everywhere, the other DM commands in the bot’s DMs', () => {
    const defs = slashCommandDefinitions('dm');
    expect(defs.map((d) => d.name)).toEqual(['ask', 'listings', 'handoff']);
    for (const d of defs) {
      if (USER_INSTALLABLE.includes(d.name)) {
        expect(d.integration_types).toEqual([GUILD_INSTALL, USER_INSTALL]);
        expect(d.contexts).toEqual([Guild, BotDM, PrivateChannel]);
      } else {
        expect(d.integration_types).toEqual([GUILD_INSTALL]);
        expect(d.contexts).toEqual([BotDM]);
      }
    }
  });

  test('a global registration: admin and handoff commands guild-install only; /ask and /listings user-installable anywhere', () => {
    const defs = slashCommandDefinitions('global');
    expect(defs.map((d) => d.name)).toEqual(COMMAND_SPECS.map((s) => s.name));
    for (const d of defs) {
      const spec = COMMAND_SPECS.find((s) => s.name === d.name)!;
      if (spec.userInstall) {
        expect(d.integration_types).toEqual([GUILD_INSTALL, USER_INSTALL]);
        expect(d.contexts).toEqual([Guild, BotDM, PrivateChannel]);
        continue;
      }
      expect(d.integration_types).toEqual([GUILD_INSTALL]);
      expect(d.contexts).toEqual(spec.directMessages ? [Guild, BotDM] : [Guild]);
    }
  });

  test('/ask has its question and, on Discord, a photos switch that opens a form with a file upload', () => {
    const ask = slashCommandDefinitions('global').find((d) => d.name === 'ask')!;
    expect(ask.options?.map((o) => [o.name, o.required ?? false])).toEqual([
      ['question', true],
      ['photos', false],
    ]);
  });
});
