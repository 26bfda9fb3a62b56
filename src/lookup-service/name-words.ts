// Word lists for generated company names. Deliberately small enough that many
// companies share words, so common searches return hundreds of matches.

export const GB_SURNAMES = [
  'Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Robinson', 'Wright',
  'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson', 'Clarke',
  'Patel', 'Khan', 'Lewis', 'James', 'Phillips', 'Mason', 'Mitchell', 'Rose', 'Davis', 'Hughes',
  'Campbell', 'Stewart', 'Murray', 'MacDonald', 'Fraser', 'Morrison', 'Henderson', 'Paterson', 'Harrison', 'Cooper',
  'Ward', 'Morgan', 'Bennett', 'Carter', 'Fletcher', 'Holmes', 'Hunter', 'Lawson', 'Marshall', 'Barker',
  'Turner', 'Parker', 'Cox', 'Price', 'Ahmed', 'Singh', 'Baker', 'Chapman', 'Ellis', 'Grant',
  'Sinclair', 'McKenzie', 'Ferguson', 'Pritchard', 'Llewellyn', 'Rees', 'Griffiths', 'Owen', 'Hardy', 'Whitfield',
] as const;

export const IE_SURNAMES = [
  'Murphy', 'Kelly', "O'Sullivan", 'Walsh', "O'Brien", 'Byrne', 'Ryan', "O'Connor", "O'Neill", "O'Reilly",
  'Doyle', 'McCarthy', 'Gallagher', "O'Doherty", 'Kennedy', 'Lynch', 'Quinn', 'Moore', 'McLoughlin', "O'Carroll",
  'Connolly', 'Daly', "O'Connell", 'Dunne', 'Brennan', 'Burke', 'Collins', 'Fitzgerald', 'Maguire', 'Nolan',
  'Flynn', "O'Callaghan", "O'Donnell", 'Duffy', "O'Mahony", 'Boyle', 'Healy', "O'Shea", 'Sweeney', 'Hayes',
  'Kavanagh', 'Power', 'McGrath', 'Moran', 'Brady', 'Casey', 'Foley', 'Fitzpatrick', "O'Leary", 'McDonnell',
  'MacMahon', 'Donnelly', 'Regan', 'Donovan', 'Flanagan', 'Barry', 'Cunningham', 'Griffin', 'Kenny', 'Sheehan',
  'Whelan', 'Lyons', 'Higgins', 'Cullen', 'Keane', 'Maher', 'McKenna', 'Hogan', "O'Keeffe", 'McNamara',
] as const;

export const DESCRIPTIVE_WORDS = [
  'Green', 'Silver', 'Golden', 'Blue', 'Red', 'Northern', 'Southern', 'Eastern', 'Western', 'Central',
  'Royal', 'Premier', 'Prime', 'Apex', 'Summit', 'Pinnacle', 'Crown', 'Oak', 'Cedar', 'Willow',
  'Maple', 'Ash', 'Birch', 'Elm', 'Rowan', 'Hazel', 'Harbour', 'River', 'Meadow', 'Highland',
  'Lakeside', 'Riverside', 'Hillside', 'Coastal', 'Atlantic', 'Celtic', 'Pennine', 'Acme', 'Apollo', 'Orion',
  'Phoenix', 'Falcon', 'Eagle', 'Swift', 'Stag', 'Fox', 'Badger', 'Heron', 'Lion', 'Unicorn',
  'Bright', 'Clear', 'Smart', 'Rapid', 'True', 'Bold', 'Noble', 'First', 'Union', 'Allied',
  'United', 'Global', 'National', 'Metro', 'Urban', 'Rural', 'Country', 'City', 'Village', 'Castle',
  'Tower', 'Abbey', 'Priory', 'Orchard', 'Heather', 'Shamrock', 'Emerald', 'Sapphire', 'Amber', 'Granite',
] as const;

export const PLACE_NOUNS = [
  'Valley', 'Park', 'Bridge', 'Gate', 'Hill', 'Field', 'Wood', 'Point', 'Way', 'Star',
  'Line', 'Light', 'Stream', 'Bay', 'Cross', 'Haven', 'View', 'Peak', 'Ridge', 'Mill',
  'Brook', 'Vale', 'House', 'Court',
] as const;

export const TRADES = [
  'Widgets', 'Engineering', 'Construction', 'Builders', 'Consulting', 'Consultants', 'Solutions', 'Services',
  'Logistics', 'Transport', 'Haulage', 'Properties', 'Property', 'Estates', 'Developments', 'Investments',
  'Capital', 'Finance', 'Trading', 'Imports', 'Foods', 'Farm Produce', 'Bakery', 'Catering',
  'Hospitality', 'Hotels', 'Dairy', 'Brewing', 'Distillers', 'Pharmacy', 'Dental', 'Care',
  'Healthcare', 'Medical', 'Technologies', 'Software', 'Systems', 'Digital', 'Media', 'Design',
  'Marketing', 'Print', 'Publishing', 'Energy', 'Renewables', 'Solar', 'Electrical', 'Plumbing',
  'Heating', 'Roofing', 'Joinery', 'Landscapes', 'Gardens', 'Cleaning', 'Security', 'Recruitment',
  'Training', 'Legal', 'Accountants', 'Insurance', 'Motors', 'Autos', 'Marine', 'Aviation',
  'Textiles', 'Furniture', 'Interiors', 'Flooring', 'Windows', 'Glass', 'Metals', 'Plastics',
  'Packaging', 'Analytics', 'Networks', 'Events', 'Travel', 'Leisure', 'Fitness', 'Studios',
  'Architects', 'Surveyors', 'Retail', 'Wholesale', 'Supplies', 'Equipment', 'Machinery', 'Homes',
  'Lettings', 'Management', 'Partners', 'Associates', 'Ventures', 'Enterprises',
] as const;

/** Appended to a base name on a share of companies, so these words are very common. */
export const GROUP_WORDS = ['Holdings', 'Group', 'International', 'UK', 'Trust'] as const;

export const FAMILY_ENDINGS = ['& Sons', '& Daughters', '& Co', 'and Sons', 'Brothers', '& Partners'] as const;

export const IRISH_LANGUAGE_NOUNS = [
  'Bláth', 'Cnoc', 'Gleann', 'Loch', 'Sliabh', 'Coill', 'Trá', 'Siopa', 'Tithe', 'Bia',
  'Ceol', 'Teach', 'Inis', 'Ros', 'Carraig', 'Dún',
] as const;

export const IRISH_LANGUAGE_QUALIFIERS = [
  'Glas', 'Dubh', 'Bán', 'Mór', 'Beag', 'Álainn', 'na Mara', 'an Oileáin', 'na Farraige', 'an tSléibhe',
  'Éireann', 'Óg',
] as const;

export const FOREIGN_COMPANY_FORMS = ['GmbH', 'S.A.', 'B.V.', 'Inc.', 'AG', 'AB', 'AS', 'SAS', 'LLC', 'Pty Ltd'] as const;
