import { type Harness, harness } from './helpers';

/**
 * The built-in answerer over the demo data, through ClientAsk over HTTP. Each row: the question (or
 * a conversation, asked in one session, the last answer checked), the MLS numbers that must appear
 * and the ones that must not. The demo data is deterministic (src/local-service/demo).
 */
interface AskData {
  content: string;
  noAnswer: boolean;
}

interface Row {
  ask: string | string[];
  must: string[];
  mustNot: string[];
  /** Text the answer must hold (a price, a word). */
  says?: (string | RegExp)[];
  noAnswer?: boolean;
}

// The demo listings, by city (see src/local-service/demo/demo-listings.ts).
const AUSTIN = ['ATX240000', 'ATX240131', 'ATX240262', 'ATX240393', 'ATX240524', 'ATX240655'];
const DENVER = ['DEN240007', 'DEN240138', 'DEN240269', 'DEN240400', 'DEN240531', 'DEN240662'];
const SEATTLE = ['SEA240014', 'SEA240145', 'SEA240276', 'SEA240407', 'SEA240538', 'SEA240669'];
const MIAMI = ['MIA240021', 'MIA240152', 'MIA240283', 'MIA240414', 'MIA240545', 'MIA240676'];
const SOLD = ['ATX240393', 'SEA240145', 'MIA240021', 'MIA240545'];
const except = (all: string[], ...out: string[]) => all.filter((m) => !out.includes(m));

const ROWS: Row[] = [
  // The issue's own examples.
  {
    ask: 'What homes are for rent in Denver under 3000 a month?',
    must: ['DEN240269'],
    mustNot: [...AUSTIN, ...SEATTLE, 'DEN240007'],
    says: [/no homes for rent in Denver under \$3,000/, '$3,475', 'without the price limit'],
  },
  {
    ask: 'How much is 3096 Larimer St?',
    must: ['DEN240007'],
    mustNot: except(DENVER, 'DEN240007'),
    says: ['$670,000'],
  },
  {
    ask: 'Show me 3 bedroom homes for sale in Seattle',
    must: ['SEA240014'],
    mustNot: ['SEA240145', 'SEA240276', 'SEA240669', 'SEA240407'],
    says: ['Coming soon', /sold home is not shown/],
  },
  // City and sale type.
  {
    ask: 'Homes for sale in Austin',
    must: ['ATX240000', 'ATX240131', 'ATX240524'],
    mustNot: ['ATX240393', 'ATX240262', 'ATX240655', ...DENVER],
  },
  {
    ask: 'rentals in Seattle',
    must: ['SEA240276', 'SEA240669'],
    mustNot: ['SEA240014', 'SEA240407', ...MIAMI],
    says: ['/month', 'For rent'],
  },
  {
    ask: 'Which homes are for rent in Miami?',
    must: ['MIA240283', 'MIA240676'],
    mustNot: ['MIA240152', 'MIA240414', ...SOLD],
  },
  {
    ask: 'I want to buy a home in Denver',
    must: ['DEN240007', 'DEN240138', 'DEN240400', 'DEN240531'],
    mustNot: ['DEN240269', 'DEN240662'],
  },
  {
    ask: 'Show me listings in Miami',
    must: ['MIA240152', 'MIA240283', 'MIA240414', 'MIA240676'],
    mustNot: ['MIA240021', 'MIA240545'],
  },
  // Price bounds in their many spellings.
  {
    ask: 'homes for sale under 600k',
    must: ['ATX240000', 'ATX240524'],
    mustNot: ['ATX240131', 'DEN240007', 'DEN240400'],
  },
  {
    ask: 'homes for sale under $650,000',
    must: ['ATX240000', 'ATX240524', 'DEN240400'],
    mustNot: ['DEN240007', 'ATX240131'],
  },
  { ask: 'homes for sale over $1.2M', must: ['SEA240014'], mustNot: ['SEA240145', 'MIA240152', 'SEA240407'] },
  {
    ask: 'homes for sale between 800k and 900k',
    must: ['ATX240131', 'DEN240531', 'SEA240407'],
    mustNot: ['DEN240138', 'MIA240545', 'MIA240152'],
  },
  {
    ask: 'apartments for rent between $3,500 and $3,800 a month',
    must: ['ATX240262', 'MIA240283'],
    mustNot: ['DEN240269', 'SEA240276', 'MIA240676'],
  },
  { ask: 'rentals under 3,300 a month', must: ['ATX240655'], mustNot: ['DEN240269', 'MIA240676'] },
  {
    ask: 'something in Austin for less than 3,500 a month',
    must: ['ATX240655'],
    mustNot: ['ATX240262', ...except(AUSTIN, 'ATX240655')],
  },
  {
    ask: 'homes for sale in Miami from 950k to 1.1 million',
    must: ['MIA240152', 'MIA240414'],
    mustNot: ['MIA240021', 'MIA240545', 'MIA240283'],
  },
  {
    ask: 'homes for sale in Seattle around 800k',
    must: ['SEA240407', 'SEA240538'],
    mustNot: ['SEA240014', 'SEA240145'],
  },
  // No sale type named: the size of the amount says whether it is a price or a monthly rent.
  {
    ask: 'homes under 500k',
    must: [],
    mustNot: ['ATX240262', 'ATX240655', 'DEN240269', 'SEA240276'],
    says: [/no homes under \$500,000/],
  },
  { ask: 'homes in Austin under 550k', must: ['ATX240000', 'ATX240524'], mustNot: ['ATX240655', 'ATX240262'] },
  { ask: 'homes in Austin under 3500', must: ['ATX240655'], mustNot: ['ATX240000', 'ATX240524', 'ATX240262'] },
  // Bedrooms, bathrooms, property type.
  {
    ask: '4 bedroom homes for sale under $900k',
    must: ['ATX240131', 'DEN240531'],
    mustNot: ['SEA240014', 'MIA240152', 'DEN240400'],
  },
  {
    ask: 'homes with at least 3 bathrooms',
    must: ['ATX240131', 'DEN240531', 'SEA240014', 'MIA240152'],
    mustNot: ['SEA240145', 'DEN240007'],
  },
  {
    ask: 'condos for sale',
    must: ['ATX240131', 'DEN240138', 'MIA240152'],
    mustNot: ['SEA240145', 'ATX240655', 'ATX240000'],
  },
  { ask: 'apartments for rent in Seattle', must: ['SEA240276'], mustNot: ['SEA240669'] },
  {
    ask: 'houses for sale in Denver with 3 bedrooms',
    must: ['DEN240400', 'DEN240531'],
    mustNot: ['DEN240007', 'DEN240138'],
  },
  {
    ask: 'townhouses in Austin',
    must: ['ATX240000'],
    mustNot: [],
    says: [/no townhouses in Austin/, 'of any property type'],
  },
  // Status.
  {
    ask: 'Which homes are coming soon?',
    must: ['ATX240262', 'DEN240138', 'DEN240662', 'SEA240014', 'SEA240538'],
    mustNot: ['DEN240007', ...SOLD],
    says: ['Coming soon', /I found 6 homes coming soon/],
  },
  { ask: 'sold homes in Miami', must: ['MIA240021', 'MIA240545'], mustNot: ['MIA240152', 'MIA240283'], says: ['Sold'] },
  { ask: 'What has sold in Seattle?', must: ['SEA240145'], mustNot: ['SEA240014'] },
  // Address, MLS number, listing id.
  { ask: 'Tell me about MLS DEN240007', must: ['DEN240007'], mustNot: ['DEN240138'], says: ['Denver, CO'] },
  { ask: 'What about sea240276?', must: ['SEA240276'], mustNot: ['SEA240669'] },
  {
    ask: 'Is 299 Rainey Street still available?',
    must: ['ATX240393'],
    mustNot: except(AUSTIN, 'ATX240393'),
    says: ['Sold'],
  },
  { ask: 'Tell me about 5040 Collins', must: ['MIA240152'], mustNot: except(MIAMI, 'MIA240152') },
  { ask: 'Show me listing 9', must: ['DEN240269'], mustNot: ['DEN240007'] },
  { ask: 'Anything on Pike St?', must: ['SEA240014'], mustNot: ['SEA240276'] },
  // Superlatives and counts.
  { ask: 'What is the cheapest home for sale in Austin?', must: ['ATX240000'], mustNot: ['ATX240524', 'ATX240131'] },
  // No sale type asked: a monthly rent is not "cheaper" than a price, so each kind has its cheapest.
  {
    ask: 'What is the cheapest home in Miami?',
    must: ['MIA240414', 'MIA240676'],
    mustNot: ['MIA240152', 'MIA240283', ...SOLD],
    says: ['$957,000', '$3,650/month', /1\. \[6807 NE 2nd Ave[^\n]*\n2\. \[5186 SW 8th St/],
  },
  { ask: 'most expensive home in Austin', must: ['ATX240131', 'ATX240262'], mustNot: ['ATX240000', 'ATX240655'] },
  { ask: 'most expensive home for sale', must: ['SEA240014'], mustNot: ['SEA240145', 'MIA240152'] },
  { ask: 'the largest rental', must: ['ATX240262'], mustNot: ['SEA240276', 'DEN240269'] },
  { ask: 'newest home in Denver', must: ['DEN240007'], mustNot: ['DEN240400', 'DEN240269'] },
  { ask: 'the 3 cheapest rentals', must: ['ATX240655', 'DEN240269', 'DEN240662'], mustNot: ['SEA240276', 'ATX240262'] },
  {
    ask: 'How many homes are for rent in Miami?',
    must: ['MIA240283', 'MIA240676'],
    mustNot: ['MIA240152'],
    says: [/There are 2 homes for rent in Miami/],
  },
  {
    ask: 'how many condos do you have in Denver',
    must: ['DEN240138', 'DEN240662'],
    mustNot: ['DEN240007'],
    says: [/There are 2 condos in Denver/],
  },
  // Follow-ups within a session.
  { ask: ['Homes for sale in Denver', 'the second one'], must: ['DEN240138'], mustNot: ['DEN240007', 'DEN240400'] },
  {
    ask: ['cheapest home for sale in Miami', 'tell me more about it'],
    must: ['MIA240414'],
    mustNot: ['MIA240152'],
    says: ['Pets'],
  },
  {
    ask: ['houses for sale in Denver', 'anything cheaper?'],
    must: [],
    mustNot: ['DEN240531', 'DEN240400', 'DEN240007'],
    says: ['Nothing cheaper'],
  },
  {
    ask: ['homes for sale in Austin over 800k', 'anything cheaper?'],
    must: ['ATX240000', 'ATX240524'],
    mustNot: ['ATX240131', ...DENVER],
  },
  {
    ask: ['Homes for rent in Austin', 'and in Denver?'],
    must: ['DEN240269', 'DEN240662'],
    mustNot: ['DEN240007', ...AUSTIN],
  },
  { ask: ['Homes for sale in Austin', 'the last one'], must: ['ATX240524'], mustNot: ['ATX240000'] },
  // A reply naming no home ("there is no number 2") leaves the list before it as the one referred to.
  {
    ask: ['Show me 3 bedroom homes for sale in Seattle', 'the second one', 'anything cheaper?'],
    must: [],
    mustNot: ['SEA240014', 'SEA240407', 'SEA240538'],
    says: ['Nothing cheaper'],
  },
  {
    ask: ['Homes for sale in Denver', 'the ninth one', 'the second one'],
    must: ['DEN240138'],
    mustNot: ['DEN240007', 'DEN240400'],
  },
  { ask: 'Show me the first homes for rent in Austin', must: ['ATX240262', 'ATX240655'], mustNot: ['ATX240000'] },
  // A question about one home's rooms is about that home, not a count of homes.
  {
    ask: 'How many bedrooms does 4460 Blake St have?',
    must: ['DEN240531'],
    mustNot: except(DENVER, 'DEN240531'),
    says: ['4-bedroom'],
  },
  // Nothing matches: truthful, with what was relaxed.
  {
    ask: 'homes in Boston',
    must: [],
    mustNot: [...AUSTIN, ...DENVER],
    says: ['no listings in Boston', 'Austin, Denver, Seattle and Miami'],
  },
  {
    ask: '6 bedroom homes for sale in Austin',
    must: ['ATX240131'],
    mustNot: ['ATX240393'],
    says: [/no homes for sale in Austin with 6\+ bedrooms/, 'with fewer bedrooms'],
  },
  // About the assistant itself (its settings answer), and thanks: answered, not handed to a person.
  { ask: 'What can you do?', must: [], mustNot: [...AUSTIN], says: ["I'm the Skyline Realty assistant"] },
  { ask: 'Who are you?', must: [], mustNot: [...DENVER], says: ["I'm the Skyline Realty assistant"] },
  { ask: 'Thank you!', must: [], mustNot: [...SEATTLE], says: ["You're welcome"] },
  {
    ask: 'Are there any 5 bedroom homes?',
    must: ['ATX240131'],
    mustNot: ['SEA240145'],
    says: [/no homes with 5\+ bedrooms/, /1 sold home is not shown/, 'with fewer bedrooms'],
  },
  // Outside the listings: the only noAnswer.
  { ask: 'What is the capital of France?', must: [], mustNot: [...AUSTIN], noAnswer: true },
  { ask: 'Can you write me a poem?', must: [], mustNot: [...DENVER], noAnswer: true },
];

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

async function converse(questions: string[]): Promise<AskData> {
  const sid = await h.session();
  let last: AskData = { content: '', noAnswer: true };
  for (const content of questions) {
    const r = await h.post<AskData>('/chat/Chat/ClientAsk', { sessionID: sid, content });
    expect(r.body.Success).toBe(true);
    last = r.body.Data;
  }
  return last;
}

describe('the built-in answerer over the demo data', () => {
  it('has at least 40 questions', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
  });

  it.each(ROWS.map((r) => [Array.isArray(r.ask) ? r.ask.join(' / ') : r.ask, r] as const))('%s', async (_name, row) => {
    const a = await converse(Array.isArray(row.ask) ? row.ask : [row.ask]);
    for (const mls of row.must) expect(a.content).toContain(mls);
    for (const mls of row.mustNot) expect(a.content).not.toContain(mls);
    for (const s of row.says ?? []) {
      if (typeof s === 'string') expect(a.content).toContain(s);
      else expect(a.content).toMatch(s);
    }
    expect(a.noAnswer).toBe(row.noAnswer ?? false);
    // Never claims that a person was contacted, never shows a wire value.
    expect(a.content).not.toMatch(
      /passing your question|will reply here shortly|has been notified|PreOnMarket|for_sale|for_rent/,
    );
  });
});

describe('settings the built-in answerer honours', () => {
  it('AIResponseLanguage Spanish: fixed phrases and status words in Spanish; AnswerSuffix appended; WelcomeMessage greets', async () => {
    const h2 = await harness({ chatbotId: 'espanol' });
    try {
      const edit = await h2.post('/chat/Chatbot/Edit', {
        serialNumber: 'espanol',
        AIResponseLanguage: 'Spanish',
        AnswerSuffix: '-- Inmobiliaria Skyline',
        WelcomeMessage: '¡Hola! Soy el asistente de Skyline.',
      });
      expect(edit.body.Success).toBe(true);
      const sid = await h2.session('espanol');
      const ask = async (content: string) =>
        (await h2.post<AskData>('/chat/Chat/ClientAsk', { sessionID: sid, content })).body.Data;
      const rent = await ask('¿Qué viviendas hay en alquiler en Denver por menos de 3000 al mes?');
      expect(rent.content).toMatch(/Ahora mismo no hay viviendas en alquiler en Denver por menos de \$3,000\/mes/);
      expect(rent.content).toContain('$3,475/mes');
      expect(rent.content).toContain('En alquiler');
      expect(rent.content).not.toMatch(/would you|for rent|nearest/i);
      expect(rent.content.endsWith('-- Inmobiliaria Skyline')).toBe(true);
      const soon = await ask('casas próximamente en Seattle');
      expect(soon.content).toContain('Próximamente');
      expect((await ask('Hola')).content).toBe('¡Hola! Soy el asistente de Skyline.\n\n-- Inmobiliaria Skyline');
    } finally {
      await h2.close();
    }
  });

  it('a question about reaching a person is answered from TalkToHumanEmail, without claiming anyone was contacted', async () => {
    const a = await converse(['How can I contact an agent?']);
    expect(a.noAnswer).toBe(false);
    expect(a.content).toContain('agents@skyline-realty.example.com');
  });
});
