/**
 * The lead summary covers the whole conversation. A 30-turn conversation (15 questions, 15 answers)
 * whose contact details are all in its first message: the transcript keeps only the last 20 turns,
 * but the ticket's lead shows the e-mail, the phone, the city, the budget and the bedrooms, gathered
 * as that first message arrived.
 */
import { button, shown } from '../../../fakes/slack-blocks';
import { answerMessages, HANDOFF_CHANNEL, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { waitFor } from '../../../fakes/wait-for';
import { useStarted } from '../../support/server-setup';
import { ephemeralTo, firstLineOf } from '../../support/slack-flows';

const CHANNEL = 'C0LEADALL';
const FIRST =
  'I am looking for a 3 bedroom house in Austin, my budget is up to $650,000. Reach me at ada.l@example.com or (512) 555-0143.';
const FOLLOW_UPS = [
  'What are the schools like?',
  'Is there a park nearby?',
  'How old are the roofs usually?',
  'What about parking?',
  'Are pets allowed?',
  'How are the commutes?',
  'What is the weather like?',
  'Any tips for a first visit?',
  'How fast do homes sell?',
  'What are closing costs?',
  'Do I need an inspection?',
  'How long does escrow take?',
  'Can I see photos?',
  'What should I ask the seller?',
];

describe('Slack: the lead summary of a 30-turn conversation', () => {
  const e = useStarted(() => startSlackE2E());

  test('contact details from the first message are all on the ticket', async () => {
    await e.driver.command('/ask', FIRST, { user: 'U0USER1', channel: CHANNEL });
    const root = await waitFor(() => rootFor(e.fake, CHANNEL, 'I am looking for'), 'the root');
    const first = await waitForAnswer(e, CHANNEL, root.ts, FIRST);
    // The answer read the whole first message: the city, the bedrooms and the budget.
    expect(firstLineOf(first.messages)).toMatch(/^There are no houses in Austin with 3\+ bedrooms under \$650,000/);
    const answered = () => answerMessages(e.fake, CHANNEL, root.ts);
    const base = Math.floor(Date.now() / 1000);
    for (const [i, question] of FOLLOW_UPS.entries()) {
      // Several follow-ups get the same text: only a reply after this question counts as its answer.
      const before = answered().length;
      await e.driver.event({
        type: 'message',
        channel: CHANNEL,
        channel_type: 'channel',
        user: 'U0USER1',
        text: question,
        ts: `${base}.${String(700000 + i)}`,
        thread_ts: root.ts,
      });
      const { messages } = await waitForAnswer(e, CHANNEL, root.ts, question, undefined, before);
      // Each question gets an answer of its own in the thread, offering a human as every answer does.
      expect(button(messages.at(-1)!, 'Talk to a human')).toBeDefined();
    }
    // Sixteen answers in the one thread, none lost or doubled.
    expect(answered().filter((m) => button(m, 'Talk to a human'))).toHaveLength(1 + FOLLOW_UPS.length);
    // 15 questions and 15 answers: 30 turns, of which the transcript holds the last 20.
    expect(e.storedAnswers(FIRST)).toHaveLength(1);
    for (const q of FOLLOW_UPS) expect(e.storedAnswers(q)).toHaveLength(1);

    const shownBefore = e.fake.ephemerals.length;
    await e.driver.command('/handoff', 'Please call me', { user: 'U0USER1', channel: CHANNEL });
    // The user is told, privately, where the agent will come (and the reply is not left in flight).
    const told = await ephemeralTo(e.fake, 'U0USER1', /human agent/, shownBefore);
    expect(told.text).toBe('A human agent has been asked to join your conversation thread.');
    const ticket = await waitFor(
      () => e.fake.channelMessages(HANDOFF_CHANNEL).find((m) => shown(m.text).includes('Please call me')),
      'the ticket',
    );
    const text = shown(ticket.text);
    expect(text).toContain('E-mail: ada.l@example.com');
    expect(text).toContain('Phone: (512) 555-0143');
    expect(text).toContain('City: Austin');
    expect(text).toContain('Budget: $650,000');
    expect(text).toContain('Bedrooms: 3');
    // The first message itself has left the transcript the ticket quotes.
    expect(text).not.toContain('I am looking for a 3 bedroom house');
  });
});
