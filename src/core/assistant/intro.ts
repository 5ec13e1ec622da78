/**
 * What a new assistant thread opens with (Slack's assistant pane): a greeting and 1 to 4 suggested
 * prompts. The chatbot's own settings come first (the WelcomeMessage and SuggestedMessage the bridge
 * applied, one prompt per line); without them, the prompts come from what the service offers (the
 * cities of its listings) and the greeting says what the bot can do.
 */
import type { TenantScope } from '../context';
import { readAppliedSettings } from '../settings/applied';
import type { AssistantIntro } from '../surface';

export const MAX_PROMPTS = 4;
/** Slack shows prompt titles on one short line. */
const MAX_PROMPT_TITLE = 40;
const LISTING_SAMPLE = 50;

export const DEFAULT_GREETING =
  "Hi! I'm your real-estate assistant. Ask me about homes for sale or for rent, prices, bedrooms, neighbourhoods or an MLS number — pick a suggestion or type a question. If I can't help, press *Talk to a human* under an answer.";

/** What anyone may ask (no listing, no setting of the chatbot needed). */
export const GENERIC_PROMPTS = [
  { title: 'Homes for sale', message: 'Which homes are for sale?' },
  { title: 'Homes for rent', message: 'Which homes are for rent?' },
];

function title(line: string): string {
  return line.length <= MAX_PROMPT_TITLE ? line : `${line.slice(0, MAX_PROMPT_TITLE - 1).trimEnd()}…`;
}

/** One prompt per non-empty line of SuggestedMessage (at most four). */
export function promptsFromSuggested(text: string): AssistantIntro['prompts'] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(0, MAX_PROMPTS)
    .map((l) => ({ title: title(l), message: l }));
}

async function promptsFromListings(ctx: TenantScope): Promise<AssistantIntro['prompts']> {
  const page = await ctx.chatbot.client.listListings({
    chatbotId: ctx.chatbot.chatbotId,
    page: 1,
    pageSize: LISTING_SAMPLE,
  });
  const counts = new Map<string, number>();
  for (const l of page.items) {
    const city = l.city?.trim();
    if (city) counts.set(city, (counts.get(city) ?? 0) + 1);
  }
  const cities = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  return cities
    .slice(0, MAX_PROMPTS)
    .map((city) => ({ title: title(`Homes in ${city}`), message: `Which homes are available in ${city}?` }));
}

/** The intro of a tenant without a chatbot: no settings or listings to draw on. */
export function plainIntro(): AssistantIntro {
  return { greeting: DEFAULT_GREETING, prompts: GENERIC_PROMPTS };
}

export async function assistantIntro(ctx: TenantScope): Promise<AssistantIntro> {
  const applied = await readAppliedSettings(ctx);
  const welcome = typeof applied.WelcomeMessage === 'string' ? applied.WelcomeMessage.trim() : '';
  const suggested = typeof applied.SuggestedMessage === 'string' ? promptsFromSuggested(applied.SuggestedMessage) : [];
  let prompts = suggested;
  if (prompts.length === 0) {
    prompts = await promptsFromListings(ctx).catch((err: unknown) => {
      ctx.log.warn({ err }, 'assistant: listings unavailable for suggested prompts');
      return [];
    });
  }
  return { greeting: welcome || DEFAULT_GREETING, prompts: prompts.length > 0 ? prompts : GENERIC_PROMPTS };
}
