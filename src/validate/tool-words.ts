import { stemmer } from 'stemmer';
import { splitWords } from '../search/tokenize.js';

/**
 * The words of tool names and descriptions, as two rules read them: the confusable-tools rule
 * (TM1001, confusable-pairs.ts) and the poisoning rule that compares what a tool says it does
 * with its effect (TM1206, check-poisoning.ts). A general lexicon of the verbs and nouns tool
 * definitions use, not a list made for particular tools.
 */

/**
 * Verbs of one kind, as tool names and descriptions use them: a model reads `find_orders` and
 * `search_orders` as one action, `create_ticket` and `close_ticket` as two. Nouns of actions
 * (conversion, deletion) count as their verb. Verbs are matched as written (with their -s, -es,
 * -ed, -ing forms), not as stems, so `news` is not `new` and `viewing` in a name stays a noun.
 * A general lexicon of the verbs tool names use, not a list made for particular tools.
 */
export const ACTION_WORDS: Record<string, string[]> = {
  find: ['search', 'find', 'lookup', 'query', 'locate', 'discover', 'seek', 'look'],
  get: ['get', 'fetch', 'retrieve', 'read', 'obtain', 'load', 'show', 'view', 'describe', 'display', 'inspect', 'stat', 'dump', 'return'],
  list: ['list', 'enumerate', 'browse'],
  create: ['create', 'add', 'make', 'insert', 'register', 'append', 'creation'],
  open: ['open'],
  update: ['update', 'edit', 'modify', 'change', 'set', 'patch', 'alter', 'amend', 'replace'],
  delete: ['delete', 'remove', 'destroy', 'erase', 'drop', 'purge', 'trash', 'deletion', 'removal', 'terminate', 'uninstall'],
  write: ['write', 'save', 'store', 'put', 'overwrite', 'manage', 'upsert'],
  send: ['send', 'post', 'email', 'notify', 'publish', 'dispatch', 'deliver', 'reply'],
  compute: ['calculate', 'compute', 'estimate', 'evaluate', 'calculation', 'computation', 'determine'],
  convert: ['convert', 'transform', 'conversion'],
  run: ['run', 'execute', 'exec', 'invoke', 'launch', 'trigger', 'perform'],
  start: ['start', 'resume', 'enable', 'activate', 'begin'],
  stop: ['stop', 'pause', 'disable', 'deactivate', 'halt', 'kill', 'suspend'],
  cancel: ['cancel', 'abort', 'revoke', 'cancellation'],
  close: ['close', 'archive', 'resolve', 'complete', 'finish', 'dismiss'],
  book: ['book', 'reserve', 'schedule', 'buy', 'purchase', 'booking', 'reservation'],
  move: ['move', 'rename', 'relocate', 'transfer'],
  merge: ['merge', 'combine'],
  translate: ['translate', 'translation'],
  sort: ['sort', 'rank'],
  navigate: ['navigate', 'go', 'visit', 'goto'],
  capture: ['capture', 'take', 'snap'],
  record: ['log', 'record', 'track'],
  check: ['check', 'verify', 'validate', 'test'],
  export: ['export', 'download'],
  import: ['import', 'upload'],
  share: ['share'],
  invite: ['invite'],
  assign: ['assign'],
  approve: ['approve', 'accept'],
  reject: ['reject', 'decline', 'deny'],
  fork: ['fork', 'clone', 'copy', 'duplicate'],
  click: ['click', 'tap', 'press'],
  hover: ['hover'],
  type: ['type', 'enter'],
  scroll: ['scroll'],
  select: ['select', 'choose', 'pick'],
  wait: ['wait', 'sleep'],
  resize: ['resize'],
  drag: ['drag'],
  drop: ['drop'],
  fill: ['fill'],
  submit: ['submit'],
  toggle: ['toggle', 'switch'],
  subscribe: ['subscribe', 'watch', 'follow'],
  mark: ['mark', 'flag'],
  count: ['count', 'tally'],
  parse: ['parse', 'extract'],
  format: ['format', 'prettify'],
  summarize: ['summarize', 'summarise', 'summary'],
  predict: ['predict', 'forecast', 'projection'],
  analyze: ['analyze', 'analyse', 'analysis'],
  generate: ['generate', 'produce'],
  play: ['play', 'stream'],
  lock: ['lock'],
  commit: ['commit'],
  restore: ['restore', 'recover', 'undelete'],
  backup: ['backup', 'snapshot'],
  deploy: ['deploy', 'release', 'install'],
  rollback: ['rollback', 'revert', 'undo'],
  comment: ['comment', 'annotate'],
  draft: ['draft'],
  acknowledge: ['acknowledge', 'ack'],
  silence: ['silence', 'mute', 'snooze'],
  refund: ['refund'],
  pay: ['pay', 'charge', 'bill'],
  sync: ['sync', 'synchronize', 'refresh', 'reload'],
  reset: ['reset', 'clear'],
  retry: ['retry', 'rerun'],
  scan: ['scan', 'audit'],
  explain: ['explain'],
  classify: ['classify', 'categorize', 'label', 'tag'],
  pin: ['pin'],
  like: ['like', 'upvote'],
  rate: ['rate', 'review', 'vote'],
  block: ['block', 'ban'],
  scale: ['scale'],
  apply: ['apply'],
  sign: ['sign'],
  encrypt: ['encrypt'],
  decrypt: ['decrypt'],
  withdraw: ['withdraw'],
  deposit: ['deposit'],
  star: ['star'],
  echo: ['echo', 'repeat'],
  request: ['request'],
  reverse: ['reverse', 'invert'],
  compress: ['compress', 'zip', 'gzip'],
  invest: ['invest'],
};
/**
 * Actions that cover each other: a generic write includes creating, changing and removing; a
 * search, a list and a get are ways of reading; "open" creates a ticket, reads a file or goes to a page.
 */
export const COMPATIBLE = new Set(['write:create', 'write:update', 'write:delete', 'find:list', 'get:list', 'open:create', 'open:get', 'open:navigate', 'open:start', 'capture:get', 'export:get', 'record:create', 'record:write', 'echo:get', 'predict:compute', 'summarize:get', 'analyze:compute', 'generate:create']);

/** Words that say "several": `read_multiple_files` and `read_files_batch` take the same thing. */
const MANY_WORDS = ['multiple', 'several', 'many', 'batch', 'bulk'];
/** Words that say "as of now". */
const NOW_WORDS = ['current', 'latest', 'recent', 'now', 'live', 'newest'];
/** Nouns tool authors use for one thing. */
const SAME_NOUNS: Record<string, string[]> = {
  directory: ['folder', 'dir', 'directories', 'folders'],
  repository: ['repo', 'repositories', 'repos'],
  document: ['doc', 'docs'],
  identifier: ['id', 'ids'],
  number: ['num'],
  message: ['msg'],
  environment: ['env'],
  image: ['picture', 'img', 'screenshot', 'photo'],
  film: ['movie'],
  list: ['array', 'arrays'],
  text: ['string', 'strings'],
};
/**
 * Words that restrict a function to one period or to the past: `get_daily_forecast` and
 * `get_hourly_forecast`, `get_exchange_rate` and `get_historical_exchange_rate` are different
 * tools. A general lexicon of time qualifiers, not a list made for particular tools.
 */
export const PERIOD_QUALIFIERS = new Set(['hourly', 'daily', 'nightly', 'weekly', 'biweekly', 'monthly', 'quarterly', 'yearly', 'annual', 'annually', 'historical', 'historic', 'intraday', 'minutely']);
/** Words in names that name no object: a difference in them does not make two tools different. */
export const GENERIC_NAME_WORDS = new Set(['info', 'information', 'detail', 'details', 'data', 'by', 'with', 'for', 'from', 'all', 'of', 'to', 'the', 'a', 'an', 'in', 'on', 'and', 'or', 'v', 'api', 'tool', 'content', 'contents', 'my', 'me', 'it', 'one', 'item', 'items']);
/** Words after which a name qualifies its object (`list_directory_with_sizes`): the head noun comes before. */
export const PREPOSITIONS = new Set(['by', 'with', 'for', 'from', 'in', 'on', 'to', 'of', 'at', 'as', 'into', 'via']);
/** Words a description may open with before its verb. */
export const LEAD_IN = new Set(['this', 'the', 'a', 'an', 'tool', 'function', 'use', 'it', 'that', 'will', 'can', 'to', 'api', 'endpoint', 'method']);
/** Words of descriptions that say little about which tool this is (besides stop words). */
export const WEAK_WORDS = new Set(['tool', 'use', 'using', 'used', 'specifi', 'specif', 'given', 'option', 'provid', 'allow', 'support', 'may', 'onli', 'also', 'work', 'within', 'call', 'need', 'want', 'result', 'valu', 'paramet', 'default', 'must', 'e', 'g', 'etc', 'one', 'two', 'particular', 'certain', 'base']);
export const STOP = new Set('a an and are as at be by for from has have how i in into is it its me my of on or our please that the their them then there these this those to us was we were what when where which who will with would you your can could should do does did if not no so than such via any each every other another own same just more most very whether'.split(' '));

const stemCache = new Map<string, string>();
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = word.length > 2 ? stemmer(word) : word;
    if (stemCache.size < 100_000) stemCache.set(word, s);
  }
  return s;
}

/** The -s, -es, -ed, -ing forms of a verb, as written. */
function forms(verb: string): string[] {
  const base = verb.endsWith('e') ? verb.slice(0, -1) : verb;
  return [verb, `${verb}s`, `${verb}es`, `${base}ed`, `${base}ing`, `${verb}ed`, `${verb}ing`, ...(verb.endsWith('y') ? [`${verb.slice(0, -1)}ies`, `${verb.slice(0, -1)}ied`] : [])];
}

/** Word as written -> canonical token: verbs become `@kind`, "several" words `@many`, noun synonyms one noun; anything else its stem. */
export const CANONICAL = new Map<string, string>();
for (const [noun, others] of Object.entries(SAME_NOUNS)) for (const word of [noun, ...others]) if (word !== noun || !Object.values(ACTION_WORDS).flat().includes(noun)) CANONICAL.set(word, stem(noun));
for (const word of MANY_WORDS) CANONICAL.set(word, '@many');
for (const word of NOW_WORDS) CANONICAL.set(word, '#now');
for (const [kind, words] of Object.entries(ACTION_WORDS)) for (const word of words) for (const form of forms(word)) if (!CANONICAL.has(form)) CANONICAL.set(form, `@${kind}`);
export const canonical = (word: string) => CANONICAL.get(word) ?? stem(word);
/** Parameter names repeat across a catalog's tools (`owner`, `repo`): each is worked out once. */
const parameterNames = new Map<string, string>();
/** A parameter name as compared: its words stemmed (`pullNumber` = `pull_number`), nouns of one thing made one. */
export function parameterName(name: string): string {
  let found = parameterNames.get(name);
  if (found === undefined) {
    found = splitWords(name)
      .map((w) => (CANONICAL.get(w)?.startsWith('@') || CANONICAL.get(w)?.startsWith('#') ? stem(w) : (CANONICAL.get(w) ?? stem(w))))
      .join('_');
    if (parameterNames.size < 100_000) parameterNames.set(name, found);
  }
  return found;
}
/** Parameter names (canonical) that many unrelated tools take: paging, sorting, free-text queries. */
export const GENERIC_PARAMETERS = new Set(['query', 'q', 'limit', 'page', 'per_page', 'page_size', 'offset', 'cursor', 'after', 'before', 'sort', 'order', 'direction', 'format', 'field', 'filter', 'since', 'until', 'max_result', 'verbos', 'locale', 'languag', 'unit', 'debug', 'timeout'].map(parameterName));
/**
 * Verbs taken as a name's action after its first word (`crm_search_accounts`, `issue_read`): bare
 * forms of verbs that are rarely nouns. `git_log`, `dns_records` or `db_query` end in a noun.
 */
const NOUN_LIKE_VERBS = new Set(['log', 'record', 'track', 'test', 'type', 'set', 'post', 'view', 'display', 'query', 'book', 'schedule', 'export', 'import', 'summary', 'forecast', 'projection', 'stream', 'switch', 'flag', 'mark', 'reply', 'request', 'lock', 'star', 'echo', 'drop', 'copy', 'order', 'return', 'show', 'count', 'format', 'play', 'input', 'enter', 'rank', 'commit', 'email', 'message', 'stat', 'dump', 'load', 'status', 'look', 'check', 'transfer', 'comment', 'backup', 'snapshot', 'release', 'label', 'tag', 'review', 'rate', 'vote', 'bill', 'block', 'scale', 'like', 'pin', 'clear', 'refresh', 'reset', 'sign', 'draft', ...Object.values(ACTION_WORDS).flat().filter((verb) => /(tion|sion|ment|ing|al|ysis)$/.test(verb))]);
export const BARE_VERBS = new Set(Object.values(ACTION_WORDS).flat().filter((verb) => !NOUN_LIKE_VERBS.has(verb)));

/** The kind of action a word names (`deletes` -> `delete`), or undefined when it is no verb the lexicon knows. */
export function verbKind(word: string): string | undefined {
  const c = CANONICAL.get(word.toLowerCase());
  return c?.startsWith('@') && c !== '@many' ? c.slice(1) : undefined;
}

/** The first word of a description that is not a lead-in ("This tool ..."): usually its verb. */
export function leadingWord(text: string): string | undefined {
  return splitWords(text).find((w) => !LEAD_IN.has(w));
}
