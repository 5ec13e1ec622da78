import { ask, startDiscordE2E, waitForAnswer } from '/work/main/test/support/discord-e2e';
test('dbg', async () => {
  const e = await startDiscordE2E({ fragmentDelayMs: 15 });
  const question = 'Tell me about every listing, the long answer';
  const t0 = Date.now();
  const { threadId } = await ask(e, question);
  const { messages } = await waitForAnswer(e, threadId, question, 60_000);
  for (const m of messages) console.log('MSG', m.history.map((v, i) => `${m.historyAt[i]! - t0}:${v.length}`).join(' '));
  console.log(e.fake.calls.filter(c => c.path.includes(threadId)).map(c => `${c.method}@${c.at - t0}`).join(' '));
  await e.close();
}, 90000);
