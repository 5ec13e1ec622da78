import { restBase } from '../../../src/surfaces/discord';

describe('DISCORD_API_URL as discord.js rest.api', () => {
  test('the base without the version, whether given with a trailing slash or a version', () => {
    expect(restBase('http://127.0.0.1:9000/api')).toBe('http://127.0.0.1:9000/api');
    expect(restBase('http://127.0.0.1:9000/api/')).toBe('http://127.0.0.1:9000/api');
    expect(restBase('http://127.0.0.1:9000/api/v10')).toBe('http://127.0.0.1:9000/api');
    expect(restBase('http://127.0.0.1:9000/api/v10/')).toBe('http://127.0.0.1:9000/api');
    expect(restBase('https://discord.com/api')).toBe('https://discord.com/api');
  });
});
