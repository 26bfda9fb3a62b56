export type GbNation = 'England' | 'Scotland' | 'Wales' | 'Northern Ireland';

export interface Town {
  city: string;
  region: string;
  /** GB: postcode area letters, e.g. "LS"; IE: Eircode routing keys, e.g. "D02". */
  postcodePrefixes: readonly string[];
  latitude: number;
  longitude: number;
}

export interface GbTown extends Town {
  nation: GbNation;
}

export const GB_TOWNS: readonly GbTown[] = [
  {
    city: 'London',
    region: 'Greater London',
    nation: 'England',
    postcodePrefixes: ['E', 'N', 'SE', 'SW', 'W', 'NW'],
    latitude: 51.5072,
    longitude: -0.1276,
  },
  { city: 'Birmingham', region: 'West Midlands', nation: 'England', postcodePrefixes: ['B'], latitude: 52.4862, longitude: -1.8904 },
  { city: 'Manchester', region: 'Greater Manchester', nation: 'England', postcodePrefixes: ['M'], latitude: 53.4808, longitude: -2.2426 },
  { city: 'Leeds', region: 'West Yorkshire', nation: 'England', postcodePrefixes: ['LS'], latitude: 53.8008, longitude: -1.5491 },
  { city: 'Sheffield', region: 'South Yorkshire', nation: 'England', postcodePrefixes: ['S'], latitude: 53.3811, longitude: -1.4701 },
  { city: 'Liverpool', region: 'Merseyside', nation: 'England', postcodePrefixes: ['L'], latitude: 53.4084, longitude: -2.9916 },
  { city: 'Bristol', region: 'City of Bristol', nation: 'England', postcodePrefixes: ['BS'], latitude: 51.4545, longitude: -2.5879 },
  {
    city: 'Newcastle upon Tyne',
    region: 'Tyne and Wear',
    nation: 'England',
    postcodePrefixes: ['NE'],
    latitude: 54.9783,
    longitude: -1.6178,
  },
  { city: 'Nottingham', region: 'Nottinghamshire', nation: 'England', postcodePrefixes: ['NG'], latitude: 52.9548, longitude: -1.1581 },
  { city: 'Leicester', region: 'Leicestershire', nation: 'England', postcodePrefixes: ['LE'], latitude: 52.6369, longitude: -1.1398 },
  { city: 'Norwich', region: 'Norfolk', nation: 'England', postcodePrefixes: ['NR'], latitude: 52.6309, longitude: 1.2974 },
  { city: 'Cambridge', region: 'Cambridgeshire', nation: 'England', postcodePrefixes: ['CB'], latitude: 52.2053, longitude: 0.1218 },
  { city: 'Oxford', region: 'Oxfordshire', nation: 'England', postcodePrefixes: ['OX'], latitude: 51.752, longitude: -1.2577 },
  { city: 'Reading', region: 'Berkshire', nation: 'England', postcodePrefixes: ['RG'], latitude: 51.4543, longitude: -0.9781 },
  { city: 'Southampton', region: 'Hampshire', nation: 'England', postcodePrefixes: ['SO'], latitude: 50.9097, longitude: -1.4044 },
  { city: 'Brighton', region: 'East Sussex', nation: 'England', postcodePrefixes: ['BN'], latitude: 50.8225, longitude: -0.1372 },
  { city: 'Exeter', region: 'Devon', nation: 'England', postcodePrefixes: ['EX'], latitude: 50.7184, longitude: -3.5339 },
  { city: 'Plymouth', region: 'Devon', nation: 'England', postcodePrefixes: ['PL'], latitude: 50.3755, longitude: -4.1427 },
  { city: 'York', region: 'North Yorkshire', nation: 'England', postcodePrefixes: ['YO'], latitude: 53.959, longitude: -1.0815 },
  { city: 'Hull', region: 'East Riding of Yorkshire', nation: 'England', postcodePrefixes: ['HU'], latitude: 53.7676, longitude: -0.3274 },
  { city: 'Preston', region: 'Lancashire', nation: 'England', postcodePrefixes: ['PR'], latitude: 53.7632, longitude: -2.7031 },
  { city: 'Carlisle', region: 'Cumbria', nation: 'England', postcodePrefixes: ['CA'], latitude: 54.8925, longitude: -2.9329 },
  { city: 'Derby', region: 'Derbyshire', nation: 'England', postcodePrefixes: ['DE'], latitude: 52.9225, longitude: -1.4746 },
  { city: 'Coventry', region: 'West Midlands', nation: 'England', postcodePrefixes: ['CV'], latitude: 52.4068, longitude: -1.5197 },
  { city: 'Milton Keynes', region: 'Buckinghamshire', nation: 'England', postcodePrefixes: ['MK'], latitude: 52.0406, longitude: -0.7594 },
  { city: 'Ipswich', region: 'Suffolk', nation: 'England', postcodePrefixes: ['IP'], latitude: 52.0567, longitude: 1.1482 },
  { city: 'Gloucester', region: 'Gloucestershire', nation: 'England', postcodePrefixes: ['GL'], latitude: 51.8642, longitude: -2.2382 },
  { city: 'Truro', region: 'Cornwall', nation: 'England', postcodePrefixes: ['TR'], latitude: 50.2632, longitude: -5.051 },
  { city: 'Edinburgh', region: 'City of Edinburgh', nation: 'Scotland', postcodePrefixes: ['EH'], latitude: 55.9533, longitude: -3.1883 },
  { city: 'Glasgow', region: 'Glasgow City', nation: 'Scotland', postcodePrefixes: ['G'], latitude: 55.8642, longitude: -4.2518 },
  { city: 'Aberdeen', region: 'Aberdeenshire', nation: 'Scotland', postcodePrefixes: ['AB'], latitude: 57.1497, longitude: -2.0943 },
  { city: 'Dundee', region: 'Angus', nation: 'Scotland', postcodePrefixes: ['DD'], latitude: 56.462, longitude: -2.9707 },
  { city: 'Inverness', region: 'Highland', nation: 'Scotland', postcodePrefixes: ['IV'], latitude: 57.4778, longitude: -4.2247 },
  { city: 'Perth', region: 'Perth and Kinross', nation: 'Scotland', postcodePrefixes: ['PH'], latitude: 56.3969, longitude: -3.4374 },
  { city: 'Cardiff', region: 'South Glamorgan', nation: 'Wales', postcodePrefixes: ['CF'], latitude: 51.4816, longitude: -3.1791 },
  { city: 'Swansea', region: 'West Glamorgan', nation: 'Wales', postcodePrefixes: ['SA'], latitude: 51.6214, longitude: -3.9436 },
  { city: 'Wrexham', region: 'Clwyd', nation: 'Wales', postcodePrefixes: ['LL'], latitude: 53.0466, longitude: -2.9925 },
  { city: 'Belfast', region: 'County Antrim', nation: 'Northern Ireland', postcodePrefixes: ['BT'], latitude: 54.5973, longitude: -5.9301 },
  {
    city: 'Derry',
    region: 'County Londonderry',
    nation: 'Northern Ireland',
    postcodePrefixes: ['BT'],
    latitude: 54.9966,
    longitude: -7.3086,
  },
  { city: 'Newry', region: 'County Down', nation: 'Northern Ireland', postcodePrefixes: ['BT'], latitude: 54.1751, longitude: -6.3402 },
  {
    city: 'Enniskillen',
    region: 'County Fermanagh',
    nation: 'Northern Ireland',
    postcodePrefixes: ['BT'],
    latitude: 54.3438,
    longitude: -7.6315,
  },
];

export const IE_TOWNS: readonly Town[] = [
  {
    city: 'Dublin',
    region: 'County Dublin',
    postcodePrefixes: ['D01', 'D02', 'D04', 'D06', 'D08', 'D12', 'D15', 'D24'],
    latitude: 53.3498,
    longitude: -6.2603,
  },
  { city: 'Cork', region: 'County Cork', postcodePrefixes: ['T12', 'T23'], latitude: 51.8985, longitude: -8.4756 },
  { city: 'Galway', region: 'County Galway', postcodePrefixes: ['H91'], latitude: 53.2707, longitude: -9.0568 },
  { city: 'Limerick', region: 'County Limerick', postcodePrefixes: ['V94'], latitude: 52.6638, longitude: -8.6267 },
  { city: 'Waterford', region: 'County Waterford', postcodePrefixes: ['X91'], latitude: 52.2593, longitude: -7.1101 },
  { city: 'Kilkenny', region: 'County Kilkenny', postcodePrefixes: ['R95'], latitude: 52.6541, longitude: -7.2448 },
  { city: 'Sligo', region: 'County Sligo', postcodePrefixes: ['F91'], latitude: 54.2766, longitude: -8.4761 },
  { city: 'Athlone', region: 'County Westmeath', postcodePrefixes: ['N37'], latitude: 53.4239, longitude: -7.9407 },
  { city: 'Drogheda', region: 'County Louth', postcodePrefixes: ['A92'], latitude: 53.7179, longitude: -6.3561 },
  { city: 'Dundalk', region: 'County Louth', postcodePrefixes: ['A91'], latitude: 54.0, longitude: -6.4167 },
  { city: 'Tralee', region: 'County Kerry', postcodePrefixes: ['V92'], latitude: 52.2713, longitude: -9.6999 },
  { city: 'Killarney', region: 'County Kerry', postcodePrefixes: ['V93'], latitude: 52.0599, longitude: -9.5044 },
  { city: 'Ennis', region: 'County Clare', postcodePrefixes: ['V95'], latitude: 52.8436, longitude: -8.9864 },
  { city: 'Letterkenny', region: 'County Donegal', postcodePrefixes: ['F92'], latitude: 54.9558, longitude: -7.7342 },
  { city: 'Naas', region: 'County Kildare', postcodePrefixes: ['W91'], latitude: 53.2159, longitude: -6.6669 },
  { city: 'Wexford', region: 'County Wexford', postcodePrefixes: ['Y35'], latitude: 52.3369, longitude: -6.4633 },
  { city: 'Castlebar', region: 'County Mayo', postcodePrefixes: ['F23'], latitude: 53.8547, longitude: -9.298 },
  { city: 'Bray', region: 'County Wicklow', postcodePrefixes: ['A98'], latitude: 53.2028, longitude: -6.0983 },
];

export const STREET_NAMES = [
  'High',
  'Church',
  'Station',
  'Victoria',
  'Mill',
  'Park',
  'King',
  'Queen',
  'George',
  'Market',
  'Bridge',
  'Castle',
  'New',
  'Manor',
  'North',
  'South',
  'West',
  'Main',
  'School',
  'Chapel',
  'Albert',
  'Windsor',
  'Grange',
  'Orchard',
  'Meadow',
  'Harbour',
  'Quay',
  'Abbey',
  'Green',
  'Hill',
] as const;

export const STREET_TYPES = [
  'Street',
  'Road',
  'Lane',
  'Avenue',
  'Way',
  'Close',
  'Drive',
  'Place',
  'Terrace',
  'Crescent',
  'Square',
  'Court',
] as const;

export const BUILDING_NAMES = [
  'Enterprise House',
  'Centurion House',
  'Riverside House',
  'The Old Mill',
  'Beacon House',
  'Kingsway House',
  'Trinity Court',
  'Regent House',
] as const;
