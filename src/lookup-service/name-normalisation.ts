// Abbreviations that registries treat as the same word as their long form.
const WORD_EQUIVALENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['ltd', ['limited']],
  ['plc', ['public', 'limited', 'company']],
  ['co', ['company']],
  ['teo', ['teoranta']],
]);

const COMBINING_MARKS = /\p{M}/gu;
const APOSTROPHES = /['’‘`´]/g;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
// For ASCII text these give the same result as the Unicode-aware expressions,
// at a fraction of their cost; most names are ASCII and start-up time matters.
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;
const NOT_ASCII_LOWER_LETTER_OR_DIGIT = /[^a-z0-9]+/g;

/** Folds case and accents so "Éire" and "EIRE" compare equal. */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  return ASCII_ONLY.test(lower) ? lower : lower.normalize('NFD').replace(COMBINING_MARKS, '');
}

/**
 * The words of a company name or query as the search compares them: case- and
 * accent-insensitive, apostrophes dropped ("O'Reilly" = "oreilly"), any other
 * punctuation a word break, "&" = "and", and abbreviations expanded ("Ltd." =
 * "Limited", "PLC" = "Public Limited Company").
 */
export function nameWords(text: string): string[] {
  const folded = foldCase(text).replace(APOSTROPHES, '').replaceAll('&', ' and ');
  const plain = ASCII_ONLY.test(folded) ? folded.replace(NOT_ASCII_LOWER_LETTER_OR_DIGIT, ' ') : folded.replace(NOT_LETTER_OR_DIGIT, ' ');
  const words: string[] = [];
  for (const word of plain.split(' ')) {
    if (word === '') continue;
    const equivalent = WORD_EQUIVALENTS.get(word);
    if (equivalent === undefined) words.push(word);
    else words.push(...equivalent);
  }
  return words;
}

/** The name in its comparable form: its words joined by single spaces. */
export function normaliseName(text: string): string {
  return nameWords(text).join(' ');
}

/** Company numbers are opaque: only case and spaces are ignored, leading zeros matter. */
export function normaliseCompanyNumber(text: string): string {
  return text.replace(/\s+/g, '').toUpperCase();
}
