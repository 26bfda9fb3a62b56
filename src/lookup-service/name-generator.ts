import { IE_TOWNS, GB_TOWNS } from './places.js';
import {
  DESCRIPTIVE_WORDS,
  FAMILY_ENDINGS,
  FOREIGN_COMPANY_FORMS,
  GB_SURNAMES,
  type GROUP_WORDS,
  IE_SURNAMES,
  IRISH_LANGUAGE_NOUNS,
  IRISH_LANGUAGE_QUALIFIERS,
  PLACE_NOUNS,
  TRADES,
} from './name-words.js';
import { WeightedChoice } from './prng.js';
import type { SeededRandom } from './prng.js';
import type { Register } from './registers.js';

type Pattern =
  | 'surname-trade'
  | 'family'
  | 'two-surnames'
  | 'descriptive-place-trade'
  | 'descriptive-trade'
  | 'town-trade'
  | 'initials-trade';

const PATTERN_WEIGHTS = new WeightedChoice<Pattern>([
  ['surname-trade', 0.25],
  ['family', 0.12],
  ['two-surnames', 0.06],
  ['descriptive-place-trade', 0.22],
  ['descriptive-trade', 0.2],
  ['town-trade', 0.1],
  ['initials-trade', 0.05],
]);

const GROUP_WORD_WEIGHTS = new WeightedChoice<(typeof GROUP_WORDS)[number]>([
  ['Holdings', 0.5],
  ['Group', 0.3],
  ['International', 0.1],
  ['UK', 0.07],
  ['Trust', 0.03],
]);

const GB_SUFFIX_WEIGHTS = new WeightedChoice<string>([
  ['Ltd', 0.47],
  ['Limited', 0.43],
  ['PLC', 0.03],
  ['Public Limited Company', 0.01],
  ['CIC', 0.04],
  ['Community Interest Company', 0.02],
]);

const IE_SUFFIX_WEIGHTS = new WeightedChoice<string>([
  ['Limited', 0.42],
  ['Ltd', 0.16],
  ['DAC', 0.1],
  ['Designated Activity Company', 0.04],
  ['CLG', 0.06],
  ['Company Limited by Guarantee', 0.02],
  ['Unlimited Company', 0.06],
  ['PLC', 0.03],
  ['Public Limited Company', 0.01],
]);

const IRISH_LANGUAGE_SHARE = 0.05;
const UPPER_CASE_SHARE = 0.1;
const LETTERS = [...'ABCDEFGHJKLMNPRSTW'];

function surname(random: SeededRandom, register: Register): string {
  const irish = register === 'ireland' || register === 'northern-ireland';
  return random.pick(irish && random.chance(0.8) ? IE_SURNAMES : GB_SURNAMES);
}

function town(random: SeededRandom, register: Register): string {
  return random.pick(register === 'ireland' ? IE_TOWNS : GB_TOWNS).city;
}

function baseName(random: SeededRandom, register: Register): string {
  switch (random.weighted(PATTERN_WEIGHTS)) {
    case 'surname-trade':
      return `${surname(random, register)} ${random.pick(TRADES)}`;
    case 'family':
      return `${surname(random, register)} ${random.pick(FAMILY_ENDINGS)}`;
    case 'two-surnames':
      return `${surname(random, register)} ${random.pick(['&', 'and'])} ${surname(random, register)}`;
    case 'descriptive-place-trade':
      return `${random.pick(DESCRIPTIVE_WORDS)} ${random.pick(PLACE_NOUNS)} ${random.pick(TRADES)}`;
    case 'descriptive-trade':
      return `${random.pick(DESCRIPTIVE_WORDS)} ${random.pick(TRADES)}`;
    case 'town-trade':
      return `${town(random, register)} ${random.pick(TRADES)}`;
    case 'initials-trade':
      return random.chance(0.5)
        ? `${random.pick(LETTERS)}.${random.pick(LETTERS)}. ${surname(random, register)} ${random.pick(TRADES)}`
        : `${random.pick(LETTERS)} & ${random.pick(LETTERS)} ${random.pick(TRADES)}`;
  }
}

function suffix(random: SeededRandom, register: Register): string {
  switch (register) {
    case 'limited-liability-partnership':
      return 'LLP';
    case 'limited-partnership':
      return random.chance(0.6) ? 'LP' : 'Limited Partnership';
    case 'overseas':
      return random.pick(FOREIGN_COMPANY_FORMS);
    case 'ireland':
      return random.weighted(IE_SUFFIX_WEIGHTS);
    default:
      return random.weighted(GB_SUFFIX_WEIGHTS);
  }
}

function irishLanguageName(random: SeededRandom): string {
  return `${random.pick(IRISH_LANGUAGE_NOUNS)} ${random.pick(IRISH_LANGUAGE_QUALIFIERS)} ${random.chance(0.85) ? 'Teoranta' : 'Teo.'}`;
}

/** A plausible company name for the register; not necessarily unique. */
export function randomCompanyName(random: SeededRandom, register: Register): string {
  if (register === 'ireland' && random.chance(IRISH_LANGUAGE_SHARE)) return irishLanguageName(random);
  let name = baseName(random, register);
  if (random.chance(0.12)) {
    const groupWord = random.weighted(GROUP_WORD_WEIGHTS);
    if (!(groupWord === 'UK' && register === 'ireland')) name += ` ${groupWord}`;
  }
  name += ` ${suffix(random, register)}`;
  return random.chance(UPPER_CASE_SHARE) ? name.toUpperCase() : name;
}

const SWAPPED_LIMITED_SUFFIXES: ReadonlyMap<string, string> = new Map([
  ['Ltd', 'Limited'],
  ['Limited', 'Ltd'],
  ['LTD', 'LIMITED'],
  ['LIMITED', 'LTD'],
]);

/** The same name with "Ltd" and "Limited" swapped, or undefined when it has neither suffix. */
export function swapLimitedSuffix(name: string): string | undefined {
  const lastSpace = name.lastIndexOf(' ');
  const swapped = SWAPPED_LIMITED_SUFFIXES.get(name.slice(lastSpace + 1));
  return lastSpace < 0 || swapped === undefined ? undefined : `${name.slice(0, lastSpace)} ${swapped}`;
}
