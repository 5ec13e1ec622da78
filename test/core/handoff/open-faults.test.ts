/**
 * Opening a ticket: two triggers that race (a double click, two instances) leave one "(asked for a
 * human)" line in the transcript (the ticket, the lead and the e-mail read it); and a no-answer
 * handoff that is refused tells the user why instead of saying nothing.
 */
import { convRef, convRefAt } from '../../../src/core/conversations/model';
import { readTranscript } from '../../../src/core/conversations/transcript';
import type { Place } from '../../../src/core/surface';
import { waitFor } from '../../../fakes/wait-for';
import { startCoreHarness, type CoreHarness } from '../../support/core-harness';
import { useStarted } from '../../support/server-setup';

const UNANSWERABLE = 'What is the airspeed velocity of an unladen swallow?';

async function askInThread(h: CoreHarness, question: string): Promise<Place> {
  await h.bridge.command(h.invocation(h.users.alice), 'ask', question);
  const thread = h.surface.calls.filter((c) => c.op === 'startThread' && c.place?.channel === h.channel.channel).at(-1)!
    .place!;
  await h.bridge.conversations.idle();
  return thread;
}

describe('handoff: two triggers race to open a ticket', () => {
  const h = useStarted(() => startCoreHarness({ start: false }));

  it('the loser writes no "(asked for a human)" line: the transcript has exactly one', async () => {
    const thread = await askInThread(h, 'Which homes are for sale in Austin?');
    const conv = (await h.bridge.conversations.find(thread))!;
    const results = await Promise.all([
      h.bridge.handoffs.request(conv, h.users.alice, h.surface, 'first click'),
      h.bridge.handoffs.request(conv, h.users.alice, h.surface, 'second click'),
    ]);
    expect(results).toEqual([undefined, undefined]);
    const lines = (await readTranscript(h.store, convRefAt(thread))).filter((t) =>
      t.text.startsWith('(asked for a human'),
    );
    expect(lines).toHaveLength(1);
    // The line is the winner's: the reason of the ticket that stands.
    const ticket = (await h.bridge.handoffs.activeTicket(convRef(conv)))!;
    expect(lines[0]!.text).toBe(`(asked for a human) ${ticket.reason}`);
  });
});

describe('handoff on no answer: refused, the user is told why', () => {
  const h = useStarted(() => startCoreHarness({ start: false, handoffOnNoAnswer: true }));

  it("a participant's unanswered question in Alice's thread: no ticket, and a reply saying only the asker may", async () => {
    const thread = await askInThread(h, 'Which homes are for sale in Denver?');
    await h.say(h.users.bob, thread, UNANSWERABLE);
    await h.bridge.conversations.idle();
    const texts = h.surface.messagesIn(thread).map((m) => m.current.text);
    expect(texts.at(-1)).toMatch(
      /^I don't have an answer to that\. Only the person who asked in this conversation, or an admin, may ask for a human here/,
    );
    expect(h.surface.messagesIn(h.handoffChannel)).toHaveLength(0);
  });
});

describe('handoff on no answer without a handoff channel', () => {
  const h = useStarted(() => startCoreHarness({ start: false, handoffOnNoAnswer: true, handoffOn: 'none' }));

  it('the asker is told no handoff channel is configured', async () => {
    const thread = await askInThread(h, UNANSWERABLE);
    await waitFor(
      () => h.surface.messagesIn(thread).some((m) => /no human handoff channel is configured/.test(m.current.text)),
      'the reply naming the missing handoff channel',
      10_000,
    );
    const last = h.surface.messagesIn(thread).at(-1)!.current.text;
    expect(last).toMatch(/^I don't have an answer to that\. Sorry, no human handoff channel is configured/);
  });
});
