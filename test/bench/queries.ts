import { defaultDataSet, SearchIndex } from '../../src/lookup-service/index.js';
import { DESCRIPTIVE_WORDS, GB_SURNAMES, GROUP_WORDS, IE_SURNAMES, PLACE_NOUNS, TRADES } from '../../src/lookup-service/name-words.js';
import { SeededRandom } from '../../src/lookup-service/prng.js';

export interface SearchVariables {
  q: string;
  jurisdiction: 'GB' | 'IE';
}

const SEED = 5;
const JURISDICTIONS = ['GB', 'IE'] as const;
const WORDS = [...new Set([...GB_SURNAMES, ...IE_SURNAMES, ...DESCRIPTIVE_WORDS, ...PLACE_NOUNS, ...TRADES, ...GROUP_WORDS])];
const SECOND_WORDS = [...new Set([...TRADES, ...PLACE_NOUNS, ...GROUP_WORDS])];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];

function shuffled<T>(items: T[], random: SeededRandom): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/**
 * Candidate searches built from the data set's word tables, as people type
 * them: a word ("Harbour"), a word and the start of the next ("Harbour b"), or
 * two words ("Murphy Haulage"). Each kind is shuffled and the kinds are dealt
 * in turn, so that any stretch of the sequence mixes large and small answers.
 */
function* candidates(): Generator<SearchVariables> {
  const random = new SeededRandom(SEED);
  const kinds: string[][] = [
    shuffled([...WORDS], random),
    shuffled(
      WORDS.flatMap((word) => LETTERS.map((letter) => `${word} ${letter}`)),
      random,
    ),
    shuffled(
      WORDS.flatMap((word) => SECOND_WORDS.filter((second) => second !== word).map((second) => `${word} ${second}`)),
      random,
    ),
  ];
  const longest = Math.max(...kinds.map((kind) => kind.length));
  for (let i = 0; i < longest; i++) {
    for (const kind of kinds) {
      const q = kind[i];
      if (q === undefined) continue;
      for (const jurisdiction of JURISDICTIONS) yield { q, jurisdiction };
    }
  }
}

/**
 * Distinct searches that all have results in the lookup service's default
 * data set, in a fixed order. Checked against a local copy of the same index,
 * so that no request is spent on finding them.
 */
export class QuerySource {
  readonly #index = new SearchIndex(defaultDataSet());
  readonly #candidates = candidates();
  readonly #found: SearchVariables[] = [];

  /** The i-th search (0-based); throws when the word tables run out. */
  at(i: number): SearchVariables {
    while (this.#found.length <= i) {
      const next = this.#candidates.next();
      if (next.done) throw new Error(`Only ${this.#found.length} distinct searches with results exist; the benchmark asked for more`);
      const { total } = this.#index.search({ ...next.value, page: 1, pageSize: 1 });
      if (total > 0) this.#found.push(next.value);
    }
    return this.#found[i] as SearchVariables;
  }

  /** Finds the first `count` searches now, so that a timed run does not pay for it. */
  prepare(count: number): void {
    if (count > 0) this.at(count - 1);
  }
}

/** Hands out searches from `source` in order, each once. */
export class QueryCursor {
  #position = 0;

  constructor(private readonly source: QuerySource) {}

  next(): SearchVariables {
    return this.source.at(this.#position++);
  }

  get used(): number {
    return this.#position;
  }
}

/**
 * Distinct searches with at most one result each, in turn: a company number
 * of the default data set (exactly one result) and a made-up word that no
 * name holds (none); only made-up words once the numbers run out.
 */
export class SmallSearches {
  readonly #numbers: SearchVariables[] = defaultDataSet().flatMap(({ companyNumber, jurisdiction }) =>
    jurisdiction === 'GB' || jurisdiction === 'IE' ? [{ q: companyNumber, jurisdiction }] : [],
  );
  #position = 0;

  next(): SearchVariables {
    const i = this.#position++;
    const number = i % 2 === 0 ? this.#numbers[i / 2] : undefined;
    return number ?? { q: `qx${i.toString(36)}zq`, jurisdiction: JURISDICTIONS[i % 2] ?? 'GB' };
  }
}
