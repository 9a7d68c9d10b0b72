import { stemmer } from 'stemmer';

/**
 * Common English words that say nothing about which tool fits. Kept short on purpose: words like
 * "get", "list" or "find" are stop words in prose but name tool actions, so they stay.
 */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has have how i in into is it its me my of on or our please that the their them then there these this those to us was we were what when where which who will with would you your can could should do does did using use given based'.split(' '),
);

/** Splits identifiers and text into words: `getUserName`, `user_name`, `math.hypot`, `HTTPServer2`. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([a-zA-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const stemCache = new Map<string, string>();

/** Search terms: words without stop words and bare numbers, Porter-stemmed (`searching` -> `search`). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of splitWords(text)) {
    if (STOP_WORDS.has(word) || /^[0-9]+$/.test(word)) continue;
    let stem = stemCache.get(word);
    if (stem === undefined) {
      stem = word.length > 2 ? stemmer(word) : word;
      if (stemCache.size < 100_000) stemCache.set(word, stem);
    }
    out.push(stem);
  }
  return out;
}
