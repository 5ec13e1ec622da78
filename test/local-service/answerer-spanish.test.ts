import { type Harness, harness, listingBody } from './helpers';

/**
 * With AIResponseLanguage Spanish, a detail answer (one listing in full) has every fixed label from
 * the Spanish table. The listings' own words (description, extra fields) are never translated, so the
 * listings asked about here carry Spanish ones: any English word left in the answer is then a label
 * the answerer added. Asked over HTTP through ClientAsk, like the answerer table.
 */
interface AskData {
  content: string;
  noAnswer: boolean;
}

/** English labels and phrases a detail answer could leak (whole words, case-insensitive). */
const ENGLISH =
  /\b(for sale|for rent|sale|rent|bedrooms?|bath(room)?s?|beds?|status|sold|coming soon|active|price|deposit|HOA|open house|tour|built|parking|spots?|living space|sq ft|square|feet|month|per|would you|schedule|viewing|house|condo|apartment|townhouse|home)\b/i;

let h: Harness;
let ask: (content: string) => Promise<AskData>;

beforeAll(async () => {
  h = await harness({ chatbotId: 'espanol' });
  const edit = await h.post('/chat/Chatbot/Edit', { serialNumber: 'espanol', AIResponseLanguage: 'Spanish' });
  expect(edit.body.Success).toBe(true);
  const listings = [
    listingBody({
      SerialNumber: 'espanol',
      MLSNumber: 'ESV000001',
      Address: '12 Calle Mayor',
      City: 'Boise',
      PropertyType: 'Condo',
      Status: 'Active',
      SalePrice: 455000,
      HOAMonth: 320,
      Tours: 'OpenHouse',
      Description: 'Luminoso, reformado y cerca del parque.',
      ExtensionColumn: [{ Key: 'Calefacción', value: 'Gas natural' }],
    }),
    listingBody({
      SerialNumber: 'espanol',
      MLSNumber: 'ESA000002',
      Address: '40 Avenida del Río',
      City: 'Boise',
      PropertyType: 'Apartment',
      SaleType: 'for_rent',
      Status: 'PreOnMarket',
      SalePrice: undefined,
      RentPrice: 2150,
      DepositFee: 2150,
      Bedrooms: 1,
      Bathrooms: 1,
      ParkingSpots: 1,
      Tours: '3D',
      Description: 'Ático con terraza.',
      ExtensionColumn: [{ Key: 'Mascotas', value: 'Permitidas' }],
    }),
    listingBody({
      SerialNumber: 'espanol',
      MLSNumber: 'ESC000003',
      Address: '7 Paseo del Prado',
      City: 'Boise',
      PropertyType: 'House',
      Status: 'Sold',
      SalePrice: 610000,
      Description: 'Casa con jardín.',
      ExtensionColumn: [],
    }),
  ];
  for (const body of listings) {
    const r = await h.post('/chat/Chatbot/RealEstateCreate', body);
    expect(r.body.Success).toBe(true);
  }
  const sid = await h.session('espanol');
  ask = async (content) => (await h.post<AskData>('/chat/Chat/ClientAsk', { sessionID: sid, content })).body.Data;
});
afterAll(() => h.close());

/** The answer without the listing's link (its URL is the listing's own, in English). */
const labels = (content: string) => content.replace(/\]\([^)]*\)/g, ']');

describe('a Spanish detail answer', () => {
  it('a condo for sale: price, rooms, area, status, sale type, HOA and open house in Spanish, no English label', async () => {
    const a = await ask('Háblame del MLS ESV000001');
    expect(a.noAnswer).toBe(false);
    expect(a.content).toContain('ESV000001');
    const text = labels(a.content);
    for (const es of [
      'condominio',
      '3 habitaciones',
      '2.5 baños',
      'en venta',
      '$455,000',
      'Estado: En venta',
      '2,100 pies²',
      'año de construcción 2001',
      'Gastos de comunidad: $320/mes',
      'Jornada de puertas abiertas',
      'Luminoso, reformado y cerca del parque.',
      'Calefacción: Gas natural',
    ])
      expect(text).toContain(es);
    expect(text).not.toMatch(ENGLISH);
  });

  it('a rental coming soon: rent per month, deposit, 3D tour and status in Spanish, no English label', async () => {
    const a = await ask('Háblame del MLS ESA000002');
    expect(a.content).toContain('ESA000002');
    const text = labels(a.content);
    for (const es of [
      'apartamento',
      'en alquiler',
      '$2,150/mes',
      'Estado: Próximamente',
      'Fianza: $2,150',
      'Visita virtual en 3D',
      '1 plaza de aparcamiento',
    ])
      expect(text).toContain(es);
    expect(text).not.toMatch(ENGLISH);
  });

  it('a sold house asked by its address: status Vendida, no English label', async () => {
    const a = await ask('¿Sigue disponible 7 Paseo del Prado?');
    expect(a.content).toContain('ESC000003');
    const text = labels(a.content);
    expect(text).toContain('casa');
    expect(text).toContain('vendida por $610,000. Estado: Vendida');
    expect(text).not.toMatch(ENGLISH);
  });

  it('a list answer names each property type in Spanish', async () => {
    const a = await ask('viviendas en Boise');
    const text = labels(a.content);
    expect(text).toContain('ESV000001');
    expect(text).toContain('condominio');
    expect(text).not.toMatch(/\b(condo|apartment|house)\b/i);
  });
});
