/**
 * The agent knows where the user is looking (Slack's agent experience, agent_view): on
 * app_context_changed the app's DM gets suggested prompts about the channel the user has open: its
 * open ticket ("Summarise the open ticket"), the listings the chatbot's recent answers there named
 * ("What's new on <address>?", the address escaped), generic prompts for a channel of nothing, and
 * nothing of this workspace's for a channel of another workspace.
 */
import { waitFor } from '../../../fakes/slack-requests';
import { useStarted } from '../../support/server-setup';
import { askForHuman, rootFor, startSlackE2E, waitForAnswer } from '../../support/slack-e2e';
import { sampleListing } from '../../service/contract';

type Prompt = { title: string; message: string };

describe('Slack e2e: suggested prompts about the channel the user is looking at', () => {
  const e = useStarted(() => startSlackE2E({ fragmentDelayMs: 2, fake: { agentView: true } }));

  /** The user opened `looking` beside the agent (its DM `dm`); the prompts then set on the DM. */
  const lookAt = async (dm: string, looking: string, team = e.fake.team): Promise<Prompt[]> => {
    const before = e.fake.dmPrompts.get(dm)?.length ?? 0;
    const res = await e.driver.event({
      type: 'app_context_changed',
      user: 'U0USER2',
      channel: dm,
      context: { entities: [{ type: 'slack#/types/channel_id', value: looking, team_id: team }] },
    });
    expect(res.status).toBe(200);
    return waitFor(() => e.fake.dmPrompts.get(dm)?.[before], `the prompts on ${dm} about ${looking}`);
  };

  // First: the catalogue answers name is read with the first answer (and kept a minute).
  test('a channel where an answer named a listing: a prompt names its address, escaped', async () => {
    const { SerialNumber: _serial, ...data } = sampleListing(e.service.chatbotId, {
      City: 'Promptville',
      Address: '<!here> 7 Lookout Rd',
    });
    e.service.context.listings.create(e.service.chatbotId, data);
    const question = 'Which homes are for sale in Promptville?';
    await e.driver.command('/ask', question, { user: 'U0USER1', channel: 'C0CTXLIST' });
    const root = await waitFor(() => rootFor(e.fake, 'C0CTXLIST', question), 'the root');
    const { answer } = await waitForAnswer(e, 'C0CTXLIST', root.ts, question);
    expect(answer).toContain('7 Lookout Rd');

    const prompts = await lookAt('D0CTX2', 'C0CTXLIST');
    const about = prompts.find((p) => p.title.includes('Lookout'));
    expect(about?.title).toBe("What's new on &lt;!here&gt; 7 Lookout Rd?");
    expect(about?.message).toContain('&lt;!here&gt; 7 Lookout Rd');
    expect(JSON.stringify(prompts)).not.toContain('<!here>');
  });

  test("a channel with an open ticket: a prompt about it; the call spends the workspace's budget (no thread)", async () => {
    await askForHuman(e, 'U0USER1', 'C0CTXTICKET', 'Can someone call me about a house in Denver?');
    const prompts = await lookAt('D0CTX1', 'C0CTXTICKET');
    expect(prompts[0]!.title).toBe('Summarise the open ticket');
    expect(prompts[0]!.message).toMatch(/open request for a person/);
    const call = e.fake.callsOf('assistant.threads.setSuggestedPrompts').find((c) => c.args.channel_id === 'D0CTX1');
    expect(call?.args.thread_ts).toBeUndefined();
    expect(call?.args.title).toBe('About this channel');
  });

  test('a channel of nothing: the generic prompts; another workspace’s channel: nothing of this one', async () => {
    const generic = await lookAt('D0CTX3', 'C0CTXEMPTY');
    expect(generic.map((p) => p.title)).toEqual(['Homes for sale', 'Homes for rent']);
    // The ticket's channel, but as another workspace's (Slack Connect): generic prompts only.
    const foreign = await lookAt('D0CTX4', 'C0CTXTICKET', 'T0OTHERTEAM');
    expect(foreign).toEqual(generic);
    const call = e.fake.callsOf('assistant.threads.setSuggestedPrompts').find((c) => c.args.channel_id === 'D0CTX4');
    expect(call?.args.title).toBe('Try asking');
  });
});
