/**
 * The shell's forms (asked field by field, invalid values asked again) and the simulated human
 * agent of a handoff (`/agent claim|say|close`), driven through piped stdin of the built bridge
 * (`node dist/main.js`, what `npm start` runs after its build).
 */
import { buildBridge, shellForDescribe } from '../../support/shell-bridge';

describe('shell: forms field by field, and the simulated agent of a handoff', () => {
  beforeAll(buildBridge, 180_000);
  // The built bridge in a scratch directory of its own, started once the banner shows; the two tests
  // run one after the other in the same shell.
  const run = shellForDescribe('pipe', 'bridge-shell-forms-', undefined, { NO_COLOR: '1' }, { untilBanner: true });

  test('/listing update opens a prefilled form; an invalid value is asked again; the change is saved', async () => {
    const { session } = run;
    const start = session.output.length;
    session.type('/listing update mls:ATX240000');
    let answered = 0;
    let bedroomsAsked = 0;
    // Answer each field as it is asked: Enter keeps the prefilled value, Bedrooms is wrong once.
    for (;;) {
      const step = await session.waitFor(
        (o) => {
          const prompts = session.promptsAfter(start);
          if (prompts.length > answered) return { prompt: prompts[answered]! };
          return /Updated|updated/.test(o.slice(start)) ? { done: true as const } : undefined;
        },
        `form prompt #${answered + 1}`,
      );
      if ('done' in step) break;
      const next = step.prompt;
      answered += 1;
      if (next.startsWith('Bedrooms')) {
        bedroomsAsked += 1;
        session.type(bedroomsAsked === 1 ? 'many' : '5');
      } else {
        // The form is prefilled from the current listing: its MLS number shows as the value kept.
        if (next.startsWith('MLS number')) expect(next).toContain('[ATX240000]');
        session.type('');
      }
    }
    const transcript = session.output.slice(start);
    expect(bedroomsAsked).toBe(2);
    expect(session.promptsAfter(start).some((p) => p.startsWith('MLS number'))).toBe(true);
    // The error names the field, and only the bad field was asked again.
    expect(transcript).toMatch(/Bedrooms: .*number/i);
    expect(transcript).toMatch(/Offered\* \(For sale \| For rent\)/);

    const before = session.output.length;
    session.type('/listing show mls:ATX240000');
    const shown = await session.waitFor(
      (o) => (/5 bd/.test(o.slice(before)) ? o.slice(before) : undefined),
      'the updated listing',
    );
    expect(shown).toContain('ATX240000');
  }, 120_000);

  test('/handoff, then /agent claim, say and close relay both ways and hand the thread back', async () => {
    const { session } = run;
    let from = session.output.length;
    session.type('/ask Any condos for sale in Miami?');
    await session.waitFor((o) => (o.slice(from).includes('Talk to a human') ? true : undefined), 'the answer');

    from = session.output.length;
    session.type('/handoff I want to visit this weekend');
    await session.waitFor(
      (o) => (/\[#handoff[^\n]*\] Waiting since [^\n]*\n[^\n]*Handoff request/.test(o.slice(from)) ? true : undefined),
      'the ticket',
    );
    expect(session.output.slice(from)).toContain('I want to visit this weekend');

    from = session.output.length;
    session.type('/agent claim');
    await session.waitFor((o) => (/claimed/i.test(o.slice(from)) ? true : undefined), 'the claim');

    from = session.output.length;
    session.type('Is Saturday at 10 possible?');
    // The user's words reach the ticket thread verbatim, and the bot does not answer them.
    await session.waitFor(
      (o) => (/\[#handoff[^\n]*\] you: Is Saturday at 10 possible\?/.test(o.slice(from)) ? true : undefined),
      'the relayed user message',
    );
    expect(session.output.slice(from)).not.toContain('Talk to a human');

    from = session.output.length;
    session.type('/agent say Saturday at 10 works, see you there');
    await session.waitFor(
      (o) => (/bot› Agent \(agent\): Saturday at 10 works, see you there/.test(o.slice(from)) ? true : undefined),
      'the agent reply in the user thread',
    );

    from = session.output.length;
    session.type('/agent close');
    await session.waitFor((o) => (/closed/i.test(o.slice(from)) ? true : undefined), 'the close');

    from = session.output.length;
    session.type('What about Seattle rentals?');
    await session.waitFor(
      (o) => (o.slice(from).includes('Talk to a human') ? true : undefined),
      'the bot answering again',
    );

    session.child.stdin.end();
    expect(await session.exited).toBe(0);
  }, 120_000);
});
