import { readFileSync } from 'fs';

test('package is named chatbot-bridge', () => {
  expect(JSON.parse(readFileSync('package.json', 'utf8')).name).toBe('chatbot-bridge');
});
