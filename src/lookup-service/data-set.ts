import { randomStructuredAddress } from './address-generator.js';
import { companyInitials, formatAddress, logoUrl } from './address-format.js';
import type { CompanyResult, PreviousName } from './company.js';
import { dayNumber, isoDate, isoDateTime } from './dates.js';
import { deepFreeze } from './deep-freeze.js';
import { allFixtureCompanies } from './fixtures.js';
import { randomCompanyName, swapLimitedSuffix } from './name-generator.js';
import { normaliseName } from './name-normalisation.js';
import { RandomStreams, type SeededRandom, WeightedChoice } from './prng.js';
import { GB_REGISTER_WEIGHTS, randomCompanyNumber, randomStatus } from './registers.js';
import type { Register } from './registers.js';

interface DataSetOptions {
  /** Any integer; the same seed always gives the same data set. */
  seed?: number;
  /** Generated GB companies, besides the fixtures. */
  gbCount?: number;
  /** Generated IE companies, besides the fixtures. */
  ieCount?: number;
}

const DEFAULT_DATA_SET_OPTIONS: Readonly<Required<DataSetOptions>> = { seed: 20_250_630, gbCount: 15_000, ieCount: 6_000 };

const MAX_COUNT = 200_000;
const MAX_ATTEMPTS = 1_000;
/** The data set's "today", fixed so that dates do not depend on when it is generated. */
const REFERENCE_DAY = dayNumber('2025-06-30');

const INCORPORATION_ERAS = new WeightedChoice<readonly [number, number]>([
  [[dayNumber('1900-01-01'), dayNumber('1969-12-31')], 0.04],
  [[dayNumber('1970-01-01'), dayNumber('1999-12-31')], 0.18],
  [[dayNumber('2000-01-01'), dayNumber('2014-12-31')], 0.33],
  [[dayNumber('2015-01-01'), REFERENCE_DAY], 0.45],
]);

const PREVIOUS_NAME_COUNT_WEIGHTS = new WeightedChoice<number>([
  [1, 0.7],
  [2, 0.22],
  [3, 0.08],
]);

function validateCount(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_COUNT) {
    throw new RangeError(`${name} must be an integer from 0 to ${MAX_COUNT}, got ${String(value)}`);
  }
  return value;
}

function validateOptions(options: DataSetOptions): Required<DataSetOptions> {
  const seed = options.seed ?? DEFAULT_DATA_SET_OPTIONS.seed;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${String(seed)}`);
  return {
    seed,
    gbCount: validateCount('gbCount', options.gbCount ?? DEFAULT_DATA_SET_OPTIONS.gbCount),
    ieCount: validateCount('ieCount', options.ieCount ?? DEFAULT_DATA_SET_OPTIONS.ieCount),
  };
}

/** Names and numbers already in use in one jurisdiction; the registries allow each only once. */
class JurisdictionRegistry {
  private readonly numbers = new Set<string>();
  private readonly names = new Set<string>();
  readonly generatedNames: string[] = [];

  constructor(
    readonly jurisdiction: string,
    private readonly reservedNames: ReadonlySet<string>,
  ) {
    for (const fixture of allFixtureCompanies) {
      if (fixture.jurisdiction === jurisdiction) this.numbers.add(fixture.companyNumber);
    }
  }

  isReserved(name: string): boolean {
    return this.reservedNames.has(normaliseName(name));
  }

  claimName(name: string): boolean {
    const key = name.toUpperCase();
    if (this.names.has(key) || this.isReserved(name)) return false;
    this.names.add(key);
    this.generatedNames.push(name);
    return true;
  }

  claimNumber(random: SeededRandom, register: Register): string {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const number = randomCompanyNumber(random, register);
      if (!this.numbers.has(number)) {
        this.numbers.add(number);
        return number;
      }
    }
    throw new RangeError(`Could not find an unused ${register} company number in ${this.jurisdiction}; reduce the company count`);
  }
}

/** Fixture names, current and previous, stay unique so tests can rely on exact result counts for them. */
function fixtureNames(): ReadonlySet<string> {
  const names = new Set<string>();
  for (const fixture of allFixtureCompanies) {
    names.add(normaliseName(fixture.name));
    for (const previous of fixture.previousNames) names.add(normaliseName(previous.name));
  }
  return names;
}

function claimFreshName(random: SeededRandom, register: Register, registry: JurisdictionRegistry): string {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const name = randomCompanyName(random, register);
    if (registry.claimName(name)) return name;
  }
  throw new RangeError(`Could not find an unused company name in ${registry.jurisdiction}; reduce the company count`);
}

/** Deliberate near-duplicates: a name that differs from an existing one only by "Ltd"/"Limited", or that exists in the other jurisdiction. */
function claimNearDuplicateName(
  random: SeededRandom,
  source: readonly string[],
  registry: JurisdictionRegistry,
  swapSuffix: boolean,
): string | undefined {
  if (source.length === 0) return undefined;
  const original = random.pick(source);
  const swapped = swapLimitedSuffix(original);
  if (swapped === undefined) return undefined;
  const name = swapSuffix ? swapped : original;
  return registry.claimName(name) ? name : undefined;
}

function randomIncorporationDay(random: SeededRandom): number {
  const [from, to] = random.weighted(INCORPORATION_ERAS);
  return random.int(from, to);
}

/** Earlier names, most recent first; each ends on the day the next one starts, the first starts at incorporation. */
function randomPreviousNames(
  random: SeededRandom,
  register: Register,
  currentName: string,
  incorporationDay: number,
  registry: JurisdictionRegistry,
): PreviousName[] {
  const wanted = random.weighted(PREVIOUS_NAME_COUNT_WEIGHTS);
  const changeDays = [...new Set(Array.from({ length: wanted }, () => random.int(incorporationDay + 1, REFERENCE_DAY)))]
    // A company incorporated on the reference day has no later day to change its name on.
    .filter((day) => day > incorporationDay && day <= REFERENCE_DAY)
    .sort((a, b) => a - b);
  const previousNames: PreviousName[] = [];
  let startDay = incorporationDay;
  for (const endDay of changeDays) {
    previousNames.push({
      name: randomPreviousName(random, register, currentName, registry),
      startDate: isoDate(startDay),
      endDate: isoDate(endDay),
    });
    startDay = endDay;
  }
  return previousNames.reverse();
}

/** Any name but the current one or a fixture's; other companies may have had or have it, as in a real registry. */
function randomPreviousName(random: SeededRandom, register: Register, currentName: string, registry: JurisdictionRegistry): string {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const name = randomCompanyName(random, register);
    if (name.toUpperCase() !== currentName.toUpperCase() && !registry.isReserved(name)) return name;
  }
  throw new RangeError(`Could not find a previous name for ${currentName}`);
}

/**
 * The random stream of each field of one jurisdiction's generated companies
 * (and of the register each is on): a field draws only from its own, so
 * adding a field, or drawing more for one, leaves the others as they were.
 */
type FieldStream = (field: keyof CompanyResult | 'register') => SeededRandom;

function fieldStreams(streams: RandomStreams, jurisdiction: string): FieldStream {
  return (field) => streams.for(`${jurisdiction}/${field}`);
}

function randomCompany(stream: FieldStream, register: Register, name: string, registry: JurisdictionRegistry): CompanyResult {
  const companyNumber = registry.claimNumber(stream('companyNumber'), register);
  const incorporationDay = randomIncorporationDay(stream('incorporatedDate'));
  const structured = randomStructuredAddress(stream('addressStructured'), register);
  const formatted = formatAddress(structured);
  const address = stream('address').chance(0.05) || formatted === '' ? null : formatted;
  const addressStructured = stream('addressStructured').chance(0.05) ? null : structured;
  const previousNamesStream = stream('previousNames');
  const previousNames = previousNamesStream.chance(0.2)
    ? randomPreviousNames(previousNamesStream, register, name, incorporationDay, registry)
    : [];
  return {
    name,
    companyNumber,
    jurisdiction: registry.jurisdiction,
    status: randomStatus(stream('status'), register),
    address,
    addressStructured,
    incorporatedDate: isoDateTime(incorporationDay),
    isPlatformMember: stream('isPlatformMember').chance(0.15),
    previousNames,
    avatar: { image: stream('avatar').chance(0.4) ? null : logoUrl(registry.jurisdiction, companyNumber), initials: companyInitials(name) },
  };
}

/**
 * How many companies each jurisdiction holds in the data set these options give, known without generating it:
 * the fixtures, and the counts asked for, which generation meets exactly or throws.
 */
export function companiesPerJurisdiction(options: DataSetOptions = {}): Readonly<Record<string, number>> {
  const { gbCount, ieCount } = validateOptions(options);
  const counts: Record<string, number> = {};
  for (const { jurisdiction } of allFixtureCompanies) counts[jurisdiction] = (counts[jurisdiction] ?? 0) + 1;
  counts.GB = (counts.GB ?? 0) + gbCount;
  counts.IE = (counts.IE ?? 0) + ieCount;
  return counts;
}

/**
 * Builds the deterministic, frozen data set: the fixture companies plus
 * generated GB and IE companies. The same options give a deep-equal result on
 * every call and every machine.
 */
export function createDataSet(options: DataSetOptions = {}): readonly CompanyResult[] {
  const { seed, gbCount, ieCount } = validateOptions(options);
  const streams = new RandomStreams(seed);
  const reservedNames = fixtureNames();
  const companies: CompanyResult[] = [...allFixtureCompanies];

  const gb = new JurisdictionRegistry('GB', reservedNames);
  const gbStream = fieldStreams(streams, 'GB');
  for (let i = 0; i < gbCount; i++) {
    const register = gbStream('register').weighted(GB_REGISTER_WEIGHTS);
    const names = gbStream('name');
    const nearDuplicate = names.chance(0.02) ? claimNearDuplicateName(names, gb.generatedNames, gb, true) : undefined;
    const name = nearDuplicate ?? claimFreshName(names, register, gb);
    companies.push(randomCompany(gbStream, register, name, gb));
  }

  const ie = new JurisdictionRegistry('IE', reservedNames);
  const ieStream = fieldStreams(streams, 'IE');
  for (let i = 0; i < ieCount; i++) {
    const names = ieStream('name');
    const nearDuplicate = names.chance(0.04) ? claimNearDuplicateName(names, gb.generatedNames, ie, false) : undefined;
    const name = nearDuplicate ?? claimFreshName(names, 'ireland', ie);
    companies.push(randomCompany(ieStream, 'ireland', name, ie));
  }

  return deepFreeze(companies);
}
