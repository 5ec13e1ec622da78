/** The lead summary is deterministic pattern extraction: the same conversation, the same summary. */
import {
  extractBedrooms,
  extractBudget,
  extractCity,
  extractEmails,
  extractLead,
  extractListings,
  extractPhones,
  leadLines,
} from '../../../src/core/handoff/lead';

describe('lead extraction', () => {
  test('a whole conversation: e-mail, phone, city, budget, bedrooms and two listings', () => {
    const lead = extractLead({
      name: 'Ada Lovelace',
      userTexts: [
        'Hi, I am looking for a 3 bedroom house in Austin.',
        'My budget is up to $650,000. Can someone call me at (512) 555-0143 or write to ada.l@example.com?',
        'I like MLS ATX240131 and the one at 1204 Barton Springs Rd.',
      ],
      answerTexts: [
        'I found 2 listings for sale in Austin: 1. 1204 Barton Springs Rd, Austin, TX - $640,000, MLS ATX240131 2. 88 Rainey St - $610,000, MLS ATX240262',
      ],
    });
    expect(lead).toEqual({
      name: 'Ada Lovelace',
      emails: ['ada.l@example.com'],
      phones: ['(512) 555-0143'],
      listings: ['MLS ATX240131', '1204 Barton Springs Rd', '88 Rainey St', 'MLS ATX240262'],
      city: 'Austin',
      budget: '$650,000',
      bedrooms: 3,
    });
    expect(leadLines(lead)).toContain('Phone: (512) 555-0143');
    // Deterministic: the same input gives the same output.
    expect(extractLead({ name: 'Ada Lovelace', userTexts: ['in Austin'], answerTexts: [] })).toEqual(
      extractLead({ name: 'Ada Lovelace', userTexts: ['in Austin'], answerTexts: [] }),
    );
  });

  test('nothing to find: only the name, and "none given" lines', () => {
    const lead = extractLead({ name: 'Bob', userTexts: ['hello there', 'can a human help?'], answerTexts: ['Sure.'] });
    expect(lead).toEqual({ name: 'Bob', emails: [], phones: [], listings: [] });
    expect(leadLines(lead)).toEqual([
      'Name: Bob',
      'E-mail: none given',
      'Phone: none given',
      'Listings: none given',
      'City: not mentioned',
      'Budget: not mentioned',
      'Bedrooms: not mentioned',
    ]);
  });

  test('e-mails: several, deduplicated, a trailing full stop is not part of one', () => {
    expect(extractEmails('me@a.io, ME@a.io and x.y+z@mail.example.org.')).toEqual([
      'me@a.io',
      'x.y+z@mail.example.org',
    ]);
  });

  test('phones: the usual spellings; MLS numbers, prices and short numbers are not phones', () => {
    expect(extractPhones('call 512-555-0143 or +44 20 7946 0958 or 5125550199')).toEqual([
      '512-555-0143',
      '+44 20 7946 0958',
      '5125550199',
    ]);
    expect(extractPhones('MLS SEA240007, $1,250,000, 3 beds, zip 98101')).toEqual([]);
  });

  test('listings: tagged and bare MLS numbers and street addresses, in the order written', () => {
    expect(extractListings('What about 77 NE 2nd Ave and MLS# 1234567, or DEN240269?')).toEqual([
      '77 NE 2nd Ave',
      'MLS 1234567',
      'MLS DEN240269',
    ]);
  });

  test('city, budget and bedrooms: the last mention wins', () => {
    expect(extractCity('homes for sale in San Antonio please')).toBe('San Antonio');
    expect(extractCity('I want to move on Monday')).toBeUndefined();
    expect(extractBudget('we could spend around 450k, maybe')).toBe('450k');
    expect(extractBudget('the house costs $900,000 but my budget is $700,000')).toBe('$700,000');
    expect(extractBedrooms('two bedrooms would do')).toBe(2);
    expect(extractBedrooms('4-bed')).toBe(4);
    const lead = extractLead({
      name: 'C',
      userTexts: ['3 beds in Denver', 'actually 4 bedrooms in Seattle'],
      answerTexts: [],
    });
    expect([lead.city, lead.bedrooms]).toEqual(['Seattle', 4]);
  });

  test('a city ends at the end of its sentence; St. and Ft. stay part of a name', () => {
    expect(extractCity('I am moving to Denver. Budget: $450,000.')).toBe('Denver');
    expect(extractCity('Relocating to Boston. My wife works there')).toBe('Boston');
    expect(extractCity('a condo in St. Louis please')).toBe('St. Louis');
    expect(extractCity('homes near Ft. Lauderdale. Thanks')).toBe('Ft. Lauderdale');
  });

  test('where they look beats where they come from; a budget in millions without a dollar sign', () => {
    expect(extractCity('I am relocating from Chicago to Austin')).toBe('Austin');
    expect(extractCity('We are coming from Chicago')).toBe('Chicago');
    expect(extractBudget('I can afford 1.5M')).toBe('1.5M');
    expect(extractBudget('budget is 2M tops')).toBe('2M');
  });
});
