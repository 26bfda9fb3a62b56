import type { StructuredAddress } from './company.js';
import { DESCRIPTIVE_WORDS } from './name-words.js';
import { BUILDING_NAMES, GB_TOWNS, IE_TOWNS, STREET_NAMES, STREET_TYPES } from './places.js';
import type { GbNation, GbTown, Town } from './places.js';
import type { SeededRandom } from './prng.js';
import type { Register } from './registers.js';

const POSTCODE_INWARD_LETTERS = [...'ABDEFGHJLNPQRSTUWXYZ'];
const EIRCODE_CHARACTERS = [...'0123456789ACDEFHKNPRTVWXY'];
const COUNTRY_NAME_SHARE = 0.1;
const COORDINATES_MISSING_SHARE = 0.1;

const TOWNS_BY_NATION = new Map<GbNation, readonly GbTown[]>(
  (['England', 'Scotland', 'Wales', 'Northern Ireland'] as const).map((nation) => [
    nation,
    GB_TOWNS.filter((town) => town.nation === nation),
  ]),
);

interface Location {
  town: Town;
  /** The country as written out on the share of records that use a name instead of a code. */
  countryName: string;
}

function gbNation(random: SeededRandom, register: Register): GbNation | undefined {
  switch (register) {
    case 'england-wales':
      return random.chance(0.92) ? 'England' : 'Wales';
    case 'scotland':
      return 'Scotland';
    case 'northern-ireland':
      return 'Northern Ireland';
    default:
      return undefined;
  }
}

function location(random: SeededRandom, register: Register): Location {
  if (register === 'ireland') return { town: random.pick(IE_TOWNS), countryName: 'Ireland' };
  const nation = gbNation(random, register);
  const town = random.pick(nation === undefined ? GB_TOWNS : (TOWNS_BY_NATION.get(nation) ?? GB_TOWNS));
  return { town, countryName: random.chance(0.5) ? 'United Kingdom' : town.nation };
}

function streetAddress(random: SeededRandom): string {
  return `${random.int(1, 250)} ${random.pick(STREET_NAMES)} ${random.pick(STREET_TYPES)}`;
}

function postcode(random: SeededRandom, town: Town, register: Register): string {
  const prefix = random.pick(town.postcodePrefixes);
  if (register === 'ireland') {
    return `${prefix} ${Array.from({ length: 4 }, () => random.pick(EIRCODE_CHARACTERS)).join('')}`;
  }
  return `${prefix}${random.int(1, 20)} ${random.int(0, 9)}${random.pick(POSTCODE_INWARD_LETTERS)}${random.pick(POSTCODE_INWARD_LETTERS)}`;
}

function jitter(random: SeededRandom, degrees: number): number {
  return Math.round((degrees + (random.next() - 0.5) * 0.08) * 1e6) / 1e6;
}

function orNull<T>(random: SeededRandom, value: T, missingShare: number): T | null {
  return random.chance(missingShare) ? null : value;
}

/** A registered office address near a town of the register's nation, with some parts missing on a share of records. */
export function randomStructuredAddress(random: SeededRandom, register: Register): StructuredAddress {
  const { town, countryName } = location(random, register);
  let streetLine1: string;
  let streetLine2: string | null = null;
  const layout = random.next();
  if (layout < 0.65) {
    streetLine1 = streetAddress(random);
    if (random.chance(0.3)) streetLine2 = `${random.pick(['Suite', 'Floor', 'Unit'])} ${random.int(1, 40)}`;
  } else if (layout < 0.85) {
    streetLine1 = `Unit ${random.int(1, 40)}`;
    streetLine2 = `${random.pick(DESCRIPTIVE_WORDS)} ${random.chance(0.5) ? 'Business Park' : 'Industrial Estate'}`;
  } else {
    streetLine1 = random.pick(BUILDING_NAMES);
    streetLine2 = streetAddress(random);
  }
  const code = register === 'ireland' ? 'IE' : 'GB';
  const hasCoordinates = !random.chance(COORDINATES_MISSING_SHARE);
  return {
    streetLine1: orNull(random, streetLine1, 0.02),
    streetLine2,
    city: orNull(random, town.city, 0.02),
    region: orNull(random, town.region, 0.08),
    postcode: orNull(random, postcode(random, town, register), 0.03),
    country: orNull(random, random.chance(COUNTRY_NAME_SHARE) ? countryName : code, 0.02),
    latitude: hasCoordinates ? jitter(random, town.latitude) : null,
    longitude: hasCoordinates ? jitter(random, town.longitude) : null,
  };
}
