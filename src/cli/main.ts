import { isatty } from 'node:tty';
import { Command, CommanderError, Option } from 'commander';
import { isToolmanError } from '../shared/errors.js';
import { processSecrets, redactError } from '../shared/secrets.js';
import { colorEnabled, palette } from './color.js';
import { EXIT, exitCodeFor, type ExitCode } from './exit-codes.js';
import { interruption } from './interrupt.js';
import type { CliIO } from './io.js';
import { toolmanVersion } from '../shared/package-root.js';
import { ERROR_PREFIX } from './output/error-prefix.js';
import { jsonDocument } from './output/json-document.js';
import { routeLibraryConsole } from './library-console.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * The command table. Each command's module is imported only when it runs, so `toolman validate`
 * never loads what `list` or (later) `chat` need.
 */
function buildProgram(io: CliIO, setCode: (code: ExitCode) => void): Command {
  const program = new Command('toolman')
    .description('Author, check, budget and test LLM tool catalogs.')
    .version(toolmanVersion(), '-V, --version')
    .addOption(new Option('-c, --catalog <file>', 'catalog file (repeatable; default: ./toolman.yaml)').argParser(collect))
    .option('--refresh', 'ask MCP servers for their tools again instead of using the cached lists')
    .option('--accept-drift', 'use MCP server tools that differ from toolman.lock (each difference is said) instead of leaving them out')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Commander's usage errors start "error:"; toolman's own start "toolman: error:". One prefix for both.
      outputError: (s, write) => write(s.replace(/^error: /, `${palette(colorEnabled(io, io.stderr)).red(ERROR_PREFIX)} `)),
    })
    // Subcommands' --help lists --catalog too: it applies to all of them.
    .configureHelp({ showGlobalOptions: true });
  // --refresh reaches every command's manager through the environment it is given (TOOLMAN_MCP_REFRESH).
  program.hook('preAction', (_, action) => {
    if (action.optsWithGlobals().refresh === true) io.env = { ...io.env, TOOLMAN_MCP_REFRESH: '1' };
    // --accept-drift reaches every command's manager the same way (TOOLMAN_ACCEPT_DRIFT).
    if (action.optsWithGlobals().acceptDrift === true) io.env = { ...io.env, TOOLMAN_ACCEPT_DRIFT: '1' };
  });
  const catalogOf = (command: Command): string[] | undefined => command.optsWithGlobals().catalog as string[] | undefined;
  /** Catalog files given as arguments (`toolman list FILE`) join --catalog, as they would for validate. */
  const catalogsWith = (files: string[], command: Command): string[] | undefined => (files.length ? [...(catalogOf(command) ?? []), ...files] : catalogOf(command));

  program
    .command('validate')
    .description('check catalogs: YAML, schema, names, parameters, examples, providers, profiles, handlers')
    .argument('[files...]', 'catalog files, each checked on its own (default: --catalog or ./toolman.yaml)')
    .option('--json', 'print one JSON document (same as --format json)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json', 'sarif']).default('text'))
    .option('--strict', 'exit 1 on warnings too')
    .option('-q, --quiet', 'text output: show errors only')
    .option('--no-frames', 'text output: no code frames under errors')
    .addOption(new Option('--rule <CODE=level>', 'set a rule to off, info, warning or error (by code or name; repeatable; wins over the catalog\'s lint:)').argParser(collect))
    .option('--locked', 'also fail when MCP servers\' tools differ from toolman.lock (asks each server for its list)')
    .addOption(new Option('--client <name>', 'check against an MCP client\'s documented limits: vscode, windsurf (repeatable; adds to the catalog\'s lint.clients)').argParser(collect))
    .option('--max-warnings <n>', 'exit 1 when there are more than n warnings')
    .option('--quality', 'list what each tool\'s description lacks (turns on the description-quality rules TM1101-TM1105)')
    .option('--fix', 'apply the fixes findings name (did-you-mean keys, types and values, required: true, argv) to the files, then report what remains')
    .option('--judge <provider:model>', 'also have a model grade each tool\'s description with its sibling tools in view (needs the provider\'s key, or a compatible server)')
    .option('--record <file>', 'with --judge: write the judge\'s conversation to FILE, for --replay')
    .option('--replay <file>', 'grade with the judge from a recording made with --record: no network, no key')
    .action(async (files: string[], opts, command: Command) => {
      const { validateCommand } = await import('./commands/validate.js');
      setCode(await validateCommand({ files, catalog: catalogOf(command), ...opts }, io));
    });

  program
    .command('list')
    .description('list the catalog\'s tools; with --profile, what a profile offers; --explain says why')
    .argument('[files...]', 'catalog files (the same as --catalog)')
    .option('-p, --profile <name>', 'show the selection for this profile')
    .addOption(new Option('--force <tool>', 'force a tool, as a user would (repeatable)').argParser(collect))
    .option('--explain', 'every tool with its state, the step that decided it, and the rule')
    .option('--defer-auto', 'defer the costliest tools until the definitions budget fits (as defer: auto)')
    .addOption(new Option('-P, --provider <provider>', 'provider whose token costs drive --defer-auto').choices(['openai', 'openai-responses', 'anthropic', 'gemini']))
    .option('--json', 'print one JSON document')
    .action(async (files: string[], opts, command: Command) => {
      const { listCommand } = await import('./commands/list.js');
      setCode(await listCommand({ ...opts, catalog: catalogsWith(files, command) }, io));
    });

  program
    .command('show')
    .description('everything about one tool, with its parameters as a tree and as JSON Schema')
    .argument('<name>', 'tool name (or alias)')
    .option('--json', 'print one JSON document')
    .action(async (name: string, opts, command: Command) => {
      const { showCommand } = await import('./commands/show.js');
      setCode(await showCommand({ name, catalog: catalogOf(command), ...opts }, io));
    });

  program
    .command('profiles')
    .description('list profiles with how many tools each offers, defers and removes')
    .argument('[files...]', 'catalog files (the same as --catalog)')
    .option('--json', 'print one JSON document')
    .action(async (files: string[], opts, command: Command) => {
      const { profilesCommand } = await import('./commands/profiles.js');
      setCode(await profilesCommand({ ...opts, catalog: catalogsWith(files, command) }, io));
    });

  program
    .command('search')
    .description('search tools by words (BM25) or --regex: the engine behind the tool_search meta-tool')
    .argument('<query...>', 'words describing what the tool should do (quotes optional), or an RE2 pattern with --regex')
    .option('--regex', 'treat the query as a regular expression (RE2 syntax, linear time)')
    .option('-n, --limit <n>', 'how many results', '10')
    .option('-p, --profile <name>', 'search only the tools this profile can reach')
    .option('--json', 'print one JSON document')
    .action(async (words: string[], opts, command: Command) => {
      const { searchCommand } = await import('./commands/search.js');
      setCode(await searchCommand({ query: words.join(' '), catalog: catalogOf(command), ...opts }, io));
    });

  const evaluate = program.command('eval').description('measure toolman against labelled data');
  evaluate
    .command('search')
    .description('search quality: recall@1/3/5/10, MRR@10, NDCG@10 on a JSONL file of {id, query, gold[, category]}')
    .requiredOption('--cases <file>', 'JSONL file of labelled queries, or a test suite (YAML: each case\'s expected tools are its gold set)')
    .option('--regex', 'evaluate regex search instead of BM25')
    .option('--misses <n>', 'how many missed queries to list (0 for none, "all")', '10')
    .option('--json', 'print one JSON document with per-case rankings')
    .option('--suite-catalog', 'with a suite as --cases and no --catalog (and no ./toolman.yaml): search the catalog the suite names (no MCP server starts)')
    .action(async (opts, command: Command) => {
      const { evalSearchCommand } = await import('./commands/eval-search.js');
      setCode(await evalSearchCommand({ catalog: catalogOf(command), ...opts }, io));
    });

  const providerOption = () => new Option('-P, --provider <provider>', 'openai, openai-responses, anthropic or gemini').choices(['openai', 'openai-responses', 'anthropic', 'gemini']);
  const addFormatFlags = (command: Command) =>
    command
      .option('--strict', 'OpenAI / Anthropic strict schemas')
      .option('--cache-control', 'Anthropic: cache_control on the last tool')
      .addOption(new Option('--native-search <kind>', 'provider-native deferred loading and tool search').choices(['bm25', 'regex']))
      .option('--gemini-json-schema', 'Gemini: parametersJsonSchema instead of the OpenAPI subset')
      .addOption(new Option('--search-mode <mode>', 'how deferred tools are found: one tool_search, or discover_tools + get_tool_schema + invoke_tool').choices(['tool_search', 'discover']));

  addFormatFlags(
    program
      .command('format')
      .description('print the exact tools fragment a provider receives; warnings on stderr')
      .addOption(providerOption())
      .option('--all-providers', 'what each provider changes, per tool, side by side')
      .option('-p, --profile <name>', 'the profile to format')
      .addOption(new Option('--force <tool>', 'force a tool (repeatable)').argParser(collect))
      .addOption(new Option('--tool <name>', 'format only this tool (repeatable)').argParser(collect))
      .option('--round <n>', 'the round to format (forced tools are chosen in round 1 only)')
      .option('--json', 'print the whole result: payload, warnings, changes'),
  ).action(async (opts, command: Command) => {
    const { formatCommand } = await import('./commands/format.js');
    setCode(await formatCommand({ catalog: catalogOf(command), ...opts }, io));
  });

  addFormatFlags(
    program
      .command('budget')
      .description('token cost per tool and in total, eager vs deferred, against the catalog\'s budget (exit 1 when over)')
      .addOption(providerOption().default('openai'))
      .option('-m, --model <model>', 'model (default: per provider)')
      .option('-p, --profile <name>', 'the profile to budget')
      .addOption(new Option('--force <tool>', 'force a tool (repeatable)').argParser(collect))
      .option('--defer-auto', 'defer the costliest tools until the definitions budget fits')
      .option('--exact', 'ask the provider for the totals (Anthropic, Gemini; needs an API key)')
      .option('--json', 'print one JSON document'),
  ).action(async (opts, command: Command) => {
    const { budgetCommand } = await import('./commands/budget.js');
    setCode(await budgetCommand({ catalog: catalogOf(command), ...opts }, io));
  });

  program
    .command('tokens')
    .description('count a whole request body\'s input tokens as the provider bills them')
    .argument('<request>', 'a JSON request body (messages, tools, system...)')
    .addOption(providerOption().default('openai'))
    .option('-m, --model <model>', 'model (default: the body\'s model, else per provider)')
    .option('--exact', 'ask the provider (Anthropic, Gemini; needs an API key)')
    .option('--json', 'print one JSON document')
    .action(async (file: string, opts) => {
      const { tokensCommand } = await import('./commands/tokens.js');
      setCode(await tokensCommand({ file, ...opts }, io));
    });

  program
    .command('call')
    .description('run tool calls through the executor: validation, confirmation, limits, timeouts, truncation')
    .argument('[tool]', 'the tool to call')
    .option('-a, --args <json>', 'arguments as JSON')
    .option('--args-file <file>', 'arguments from a JSON file')
    .option('--batch <file>', 'calls run as one model turn: a JSON list [{"id", "name", "arguments"}], or JSONL (one call per line)')
    .option('-y, --yes', 'approve tools that need confirmation')
    .option('-p, --profile <name>', 'the profile whose selection applies')
    .addOption(new Option('-P, --provider <provider>', "the arguments are as this provider's model sends them: undo what its formatter changed (names, strict nulls, Gemini's enums as text)").choices(['openai', 'openai-responses', 'anthropic', 'gemini']))
    .option('--strict', 'with --provider: the tools were sent in strict mode (null for an optional parameter means absent)')
    .option('--gemini-json-schema', 'with --provider gemini: the tools were sent as parametersJsonSchema')
    .option('-v, --verbose', 'show each call\'s progress on stderr')
    .option('--json', 'print one JSON document: {responses, took_control}')
    .action(async (tool: string | undefined, opts, command: Command) => {
      const { callCommand, terminalAsk } = await import('./commands/call.js');
      const interrupt = interruption();
      try {
        setCode(await callCommand({ tool, catalog: catalogOf(command), ...opts, ...(stdinIsTerminal() ? { ask: terminalAsk() } : {}), signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command('serve')
    .description('serve the catalog\'s selected tools as an MCP server: stdio, or streamable HTTP with --port')
    .option('-p, --profile <name>', 'the profile whose tools are served (policies always apply)')
    .option('--port <n>', 'serve streamable HTTP at http://HOST:N/mcp instead of stdio (0 picks a free port)')
    .option('--host <host>', 'with --port: the address to listen on (default 127.0.0.1; others need --token-env or --auth-issuer)')
    .option('--token-env <name>', 'with --port: require "Authorization: Bearer <token>", the token read from this environment variable')
    .option('--auth-issuer <url>', 'with --port: accept bearer tokens (JWTs) this OAuth authorization server issued for the server; publishes the protected-resource metadata')
    .option('--auth-audience <aud>', 'with --auth-issuer: the audience tokens must name (default: the server\'s URL)')
    .addOption(new Option('--auth-scope <scope>', 'with --auth-issuer: a scope every token must hold (repeatable)').argParser(collect))
    .option('--public-url <url>', 'with --auth-issuer: the URL clients reach the server at, when a proxy stands in front (default: http://HOST:PORT/mcp)')
    .option('-y, --yes', 'approve calls that need confirmation (otherwise the client\'s user is asked through elicitation, or they are declined)')
    .addOption(new Option('--search-mode <mode>', 'how deferred tools are found').choices(['tool_search', 'discover']))
    .option('-v, --verbose', 'log each call on stderr')
    .option('--max-calls <n>', 'calls run at once over all clients (default 32); more wait their turn')
    .option('--max-session-calls <n>', 'calls run at once for one client session (default 8)')
    .option('--max-sessions <n>', 'with --port: client sessions kept (default 64); at the limit only an idle one is closed to make room')
    .option('--body-timeout <ms>', 'with --port: how long a client may take to send a whole request (default 30000)')
    .option('--idle-timeout <ms>', 'with --port: a session with no request and no call running for this long is closed (default 1800000)')
    .addHelpText('after', '\nStandard output carries only MCP messages; logs go to standard error. Stops when the client closes\nstandard input (exit 0) or on Ctrl-C / SIGTERM (exit 130). See docs/serve.md for client setup.\n')
    .action(async (opts, command: Command) => {
      const { serveCommand } = await import('./commands/serve.js');
      const interrupt = interruption();
      try {
        setCode(await serveCommand({ catalog: catalogOf(command), ...opts, interactive: stdinIsTerminal(), signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command('chat')
    .description('talk to a live model with the catalog\'s tools: the REPL on a terminal, one turn with --prompt or piped input')
    .addOption(new Option('-P, --provider <provider>', 'openai (Chat Completions, and compatible servers), openai-responses, anthropic, gemini (its OpenAI-compatible endpoint), or replay').choices(['openai', 'openai-responses', 'anthropic', 'gemini', 'replay']))
    .option('-m, --model <model>', 'the model (default per provider)')
    .option('--base-url <url>', 'the API\'s base URL: a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio), a proxy; for gemini, the Gemini API\'s base')
    .option('-p, --profile <name>', 'the profile whose tools are offered')
    .option('--force <tool>', 'offer this tool as the required choice in round one (repeatable)', collect)
    .addOption(new Option('--search <mode>', 'how deferred tools are found: client (toolman\'s tool_search) or native (the provider\'s own)').choices(['client', 'native']))
    .option('--system <text>', 'the system prompt (the tools\' prompt contributions follow it)')
    .option('--strict', 'send strict tool schemas (OpenAI, Anthropic)')
    .option('-y, --yes', 'approve tools that ask for confirmation')
    .option('--prompt <text>', 'run a turn with this message and exit (repeatable: one turn each, in one conversation)', collect)
    .option('--json', 'one turn: print one JSON document at the end (answer, stop, rounds, calls, usage, transcript)')
    .option('--events', 'one turn: print each event as a JSON line as it happens')
    .option('--estimate', 'one turn: also count every request\'s input tokens with toolman\'s tokenizer, next to the API\'s count (without it, only requests the API reported no usage for)')
    .option('--no-stream', 'ask for whole replies instead of streams')
    .option('--transcript <file>', 'append the session to this JSONL file (default: under the user\'s data folder)')
    .option('--no-transcript', 'keep no transcript')
    .option('--record <file>', 'save every request and the provider\'s raw response, for --replay')
    .option('--replay <file>', 'answer from a recording instead of a provider: no network, no key')
    .option('--replay-strict', 'with --replay: exit 1 when a tool answers differently from the recording')
    .option('--recorded-catalog', 'with --replay and no --catalog: load the catalog the recording names (its paths are printed; only mock handlers answer, no MCP server starts)')
    .option('--continue', 'go on with the last conversation of a chat in this folder (from its transcript: what was said, tool calls and results)')
    .option('--resume <file>', 'go on with the conversation in this transcript (provider, model and profile as it names them unless given)')
    .action(async (opts, command: Command) => {
      const { chatCommand, readPrompt } = await import('./commands/chat.js');
      const interrupt = interruption();
      try {
        setCode(
          await chatCommand(
            { catalog: catalogOf(command), ...opts, interactive: stdinIsTerminal() && Boolean(process.stdout.isTTY), stdinIsTerminal: stdinIsTerminal(), readStdin: () => readPrompt(process.stdin, interrupt.signal), signal: interrupt.signal },
            io,
          ),
        );
      } finally {
        interrupt.dispose();
      }
    });

  const finishFlags = (command: Command) =>
    command
      .option('--junit <file>', 'write a JUnit XML report here')
      .option('--html <file>', 'write one self-contained HTML report here (no network): verdicts, pass-rate bars with intervals, confusions, tokens and cost, failures with the model\'s calls')
      .option('--baseline <file>', 'compare with this baseline (the rules of --compare): exit 1 on a regression beyond noise')
      .option('--update-baseline', 'write the baseline (--baseline FILE) from this run instead of comparing with it')
      .option('--history <path>', 'the run history (a JSONL file, or a folder) flaky cases are found in; default: next to --baseline')
      .option('--quarantine-flaky', 'leave flaky cases (verdict flipped in the latest runs) out of the verdict')
      .option('--flaky-window <n>', 'how many latest runs flakiness is judged over (default 10)')
      .option('--json', 'print one JSON document with every run');
  const test = finishFlags(
    program
      .command('test')
      .description('run suites of cases against live models or recordings: which tools they call, with what, at what cost (exit 1 when a case fails)')
      .argument('[suites...]', 'suite files (YAML; see docs/testing.md)')
      .addOption(new Option('-P, --provider <provider>', 'run with this provider instead of the suite\'s (provider or provider:model; repeatable)').argParser(collect))
      .option('--base-url <url>', 'the API\'s base URL (a local OpenAI-compatible server, a proxy)')
      .option('--record <dir>', 'save each run\'s requests and responses under this folder, for --replay')
      .option('--replay <dir>', 'answer from recordings under this folder: no network, no key')
      .option('--concurrency <n>', 'runs at once, a whole number (fewer while the provider answers 429)', '4')
      .option('--repeat <n>', 'runs per case and provider, over the suite\'s repeat')
      .option('--max-cost <dollars>', 'stop before a live run whose whole estimate is over this (every model needs a price), and during one that spends it')
      .option('--min-pass-rate <rate>', 'exit 1 when the share of runs passed is under this (0 to 1; not with --compare)')
      .option('--prices <file>', 'JSON prices {"MODEL": {"input": N, "output": N, "cached_input"?: N}}, dollars per million tokens')
      .option('--compare <variants...>', 'run the suites on variants A B C... (catalog files, profile:NAME, eager, deferred, native) and compare each with the first')
      .option('--sequential [alpha]', 'stop each case\'s repeats once its verdict against min_pass_rate is settled (mixture SPRT, alpha default 0.05)')
      .option('--shard <i/n>', 'run only this machine\'s share of the runs (with --json; join the shards with toolman test merge)')
      .option('--coverage', 'list the catalog\'s tools, parameters and enum values no case exercises (nothing runs)')
      .option('--suite-catalog', 'with no --catalog (and no ./toolman.yaml): load the catalog each suite names (its paths are printed; only mock handlers answer, no MCP server starts)')
      .option('--live-tools', 'let a suite\'s tools: live run the catalog\'s real handlers (without it, tools answer from mocks and stubs)'),
  ).action(async (suites: string[], opts, command: Command) => {
    const { testCommand } = await import('./commands/test.js');
    const interrupt = interruption();
    try {
      setCode(await testCommand({ suites, catalog: catalogOf(command), ...opts, signal: interrupt.signal }, io));
    } finally {
      interrupt.dispose();
    }
  });
  finishFlags(test.command('merge').description('join the --json results of every shard of one run (toolman test --shard I/N) into the report of the whole run').argument('<results...>', 'the shards\' --json files')).action(async (files: string[], _opts, command: Command) => {
    const { mergeCommand } = await import('./commands/test-merge.js');
    // `test`'s options of the same names (--json, --html...) take them wherever they are written: read both.
    const { json, junit, html, baseline, updateBaseline, history, quarantineFlaky, flakyWindow } = command.optsWithGlobals();
    setCode(await mergeCommand({ files, json, junit, html, baseline, updateBaseline, history, quarantineFlaky, flakyWindow }, io));
  });
  test
    .command('init')
    .description('draft an editable suite for the catalog: a case per tool, a not_called case per destructive tool, one per confusable pair, no_tool cases')
    .option('-o, --output <file>', 'write the suite here (default: standard output)')
    .option('-p, --profile <name>', 'the profile whose tools the suite covers')
    .option('-m, --model <provider:model>', 'a model writes the prompts (else they are drafted from descriptions and examples)')
    .option('--base-url <url>', 'with --model: the API\'s base URL')
    .option('--record <file>', 'with --model: record the conversation to this file')
    .option('--replay <file>', 'with --model: answer from this recording (no network, no key)')
    .option('--force', 'overwrite the output (and --record) file if it exists')
    .action(async (_opts, command: Command) => {
      const { initCommand } = await import('./commands/test-init.js');
      const interrupt = interruption();
      // `test`'s options of the same names (--record, --replay, --base-url) take them wherever they are written: read both.
      const { output, profile, model, baseUrl, record, replay, force } = command.optsWithGlobals();
      try {
        setCode(await initCommand({ catalog: catalogOf(command), output, profile, model, baseUrl, record, replay, force, signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command('diff')
    .description('what changed between two versions of a catalog: tools, parameters (breaking or not), tokens, selection, lint, pass rates')
    .argument('<old>', 'the old catalog file (e.g. from git show main:catalog.yaml > old.yaml)')
    .argument('<new>', 'the new catalog file')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--json', 'print one JSON document (same as --format json)')
    .addOption(new Option('--suite <file>', 'also compare pass rates on this suite (repeatable; needs --replay)').argParser(collect))
    .option('--replay <dir>', 'recordings of both versions: DIR/A (old) and DIR/B (new), as test --compare OLD NEW --record DIR makes them')
    .option('--strict', 'exit 1 when a change is breaking')
    .action(async (old: string, next: string, opts) => {
      const { diffCommand } = await import('./commands/diff.js');
      setCode(await diffCommand({ old, new: next, ...opts }, io));
    });

  program
    .command('import')
    .description('turn tool definitions (OpenAI, Anthropic, Gemini, MCP, BFCL), or a running MCP server\'s tools (--mcp), into a catalog')
    .argument('[file...]', 'JSON or YAML file with tool definitions; - reads standard input; with --mcp: -- COMMAND ARGS...')
    .option('--mcp', 'snapshot a running MCP server: --url URL, or -- COMMAND ARGS... after the options')
    .option('--url <url>', 'with --mcp: the server\'s streamable HTTP endpoint')
    .addOption(new Option('-e, --env <name>', 'with --mcp: pass this environment variable to the server (repeatable)').argParser(collect))
    .addOption(new Option('-H, --header <header>', 'with --mcp --url: "Name: value" header; write secrets as ${env:NAME} (repeatable)').argParser(collect))
    .option('-o, --output <file>', 'write the catalog here (default: standard output)')
    .addOption(new Option('--from <format>', 'input format (default: detected)').choices(['openai', 'openai-responses', 'openai-functions', 'anthropic', 'gemini', 'mcp', 'bfcl']))
    .option('--name <name>', 'catalog name (default: the file name)')
    .option('--force', 'overwrite the output file if it exists')
    .option('--json', 'print a JSON report (per tool: new name, original, changes)')
    .action(async (files: string[], opts) => {
      const { importCommand } = await import('./commands/import.js');
      setCode(await importCommand({ file: files[0] ?? '', ...opts, ...(opts.mcp ? { file: 'mcp', command: files } : files.length === 1 ? {} : { file: '' }) }, io));
    });

  // `toolman mcp`: MCP servers from the shell, named with --url or after --.
  const mcp = program.command('mcp').description('talk to an MCP server from the shell: list its tools (with token costs and lint findings), call one, sign in to one');
  const serverFlags = (command: Command) =>
    command
      .argument('[command...]', 'the server to start, after --: -- COMMAND ARGS...')
      .option('--url <url>', 'a streamable HTTP server instead of a command')
      .addOption(new Option('-e, --env <name>', 'pass this environment variable to the server (repeatable)').argParser(collect))
      .addOption(new Option('-H, --header <header>', 'with --url: "Name: value" header; write secrets as ${env:NAME} (repeatable)').argParser(collect))
      .option('--timeout <ms>', 'how long the server gets to start (default 30000)')
      .addOption(new Option('--protocol <revision>', 'the MCP revision: auto asks the server (default), legacy speaks 2025-11-25, 2026-07-28 refuses an older server').choices(['auto', 'legacy', '2026-07-28']))
      .option('--login', 'sign in (through the browser) if the HTTP server asks for authorization, and keep the tokens');
  serverFlags(mcp.command('tools').description("a server's tools: token cost per provider and lint findings"))
    .option('--json', 'print one JSON document')
    .action(async (command: string[], opts) => {
      const { mcpToolsCommand } = await import('./commands/mcp.js');
      setCode(await mcpToolsCommand({ ...opts, command }, io));
    });
  serverFlags(mcp.command('call').description("call one of a server's tools through toolman's executor (validation, confirmation, timeout)").argument('<tool>', "the server's name for the tool"))
    .option('-a, --args <json>', 'arguments as JSON', '{}')
    .option('-y, --yes', 'approve a tool that needs confirmation')
    .option('-v, --verbose', "show the call's progress on stderr")
    .option('--json', 'print one JSON document')
    .action(async (tool: string, command: string[], opts) => {
      const { mcpCallCommand } = await import('./commands/mcp.js');
      const { terminalAsk } = await import('./commands/call.js');
      const interrupt = interruption();
      try {
        setCode(await mcpCallCommand({ ...opts, tool, command, ...(stdinIsTerminal() ? { ask: terminalAsk() } : {}), signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });

  // Prompts and resources: of one server (--url, or -- COMMAND), or of every server of the catalog.
  const contentFlags = (command: Command) =>
    serverFlags(command)
      .option('-y, --yes', 'answer yes to a yes/no question the server asks on the way')
      .option('--json', 'print one JSON document');
  const asking = () => (stdinIsTerminal() ? { ask: terminalAskLazy } : {});
  const terminalAskLazy = async (question: string) => (await import('./commands/call.js')).terminalAsk()(question);
  const prompts = mcp.command('prompts').description("a server's prompts (without --url or --: every server of the catalog, named as their tools are); get one");
  contentFlags(prompts.command('list', { isDefault: true }).description('list the prompts and their arguments')).action(async (command: string[], opts, self: Command) => {
    const { mcpPromptsCommand } = await import('./commands/mcp-content.js');
    setCode(await mcpPromptsCommand({ ...opts, command, catalog: catalogOf(self), ...asking() }, io));
  });
  contentFlags(prompts.command('get').description("a prompt's messages for the given arguments").argument('<name>', 'the prompt (as `mcp prompts` names it)'))
    .addOption(new Option('-a, --arg <name=value>', 'an argument of the prompt (repeatable)').argParser(collect))
    .option('--args <json>', 'the arguments as a JSON object of strings')
    .action(async (name: string, command: string[], opts, self: Command) => {
      const { mcpPromptGetCommand } = await import('./commands/mcp-content.js');
      setCode(await mcpPromptGetCommand({ ...opts, name, command, catalog: catalogOf(self), ...asking() }, io));
    });
  const resources = mcp.command('resources').description("a server's resources and resource templates (without --url or --: every server of the catalog); read one");
  contentFlags(resources.command('list', { isDefault: true }).description('list the resources and resource templates')).action(async (command: string[], opts, self: Command) => {
    const { mcpResourcesCommand } = await import('./commands/mcp-content.js');
    setCode(await mcpResourcesCommand({ ...opts, command, catalog: catalogOf(self), ...asking() }, io));
  });
  contentFlags(resources.command('read').description("a resource's content (text printed; binary with -o FILE)").argument('<uri>', "the resource's URI"))
    .option('--server <name>', 'the catalog server to read from (default: the one that lists the URI, or whose template matches it)')
    .option('-o, --output <file>', 'write the content to FILE (a new file, 0600; binary decoded)')
    .action(async (uri: string, command: string[], opts, self: Command) => {
      const { mcpResourceReadCommand } = await import('./commands/mcp-content.js');
      setCode(await mcpResourceReadCommand({ ...opts, uri, command, catalog: catalogOf(self), ...asking() }, io));
    });

  mcp
    .command('login')
    .description('sign in to an HTTP MCP server with OAuth: opens its sign-in page ($BROWSER, or the URL is printed) and keeps the tokens (0600, per authorization server)')
    .argument('[name]', "the server's entry in the catalog's mcp_servers")
    .option('--url <url>', 'a server by its URL instead of a catalog entry')
    .option('--client-id <id>', 'a client id registered with the authorization server beforehand')
    .option('--client-secret-env <name>', "the environment variable holding that client's secret")
    .addOption(new Option('--scope <scope>', 'a scope to ask for when the server names none (repeatable)').argParser(collect))
    .option('--json', 'print one JSON document')
    .action(async (name: string | undefined, opts, command: Command) => {
      const { mcpLoginCommand } = await import('./commands/mcp-login.js');
      const interrupt = interruption();
      try {
        setCode(await mcpLoginCommand({ ...opts, ...(name !== undefined ? { name } : {}), catalog: catalogOf(command), signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });
  mcp
    .command('logout')
    .description('forget the OAuth tokens toolman holds for a server (or for every server of an authorization server)')
    .argument('[name]', "the server's entry in the catalog's mcp_servers")
    .option('--url <url>', 'a server by its URL instead of a catalog entry')
    .option('--issuer <url>', 'everything toolman holds for this authorization server, its registration too')
    .option('--json', 'print one JSON document')
    .action(async (name: string | undefined, opts, command: Command) => {
      const { mcpLogoutCommand } = await import('./commands/mcp-login.js');
      setCode(await mcpLogoutCommand({ ...opts, ...(name !== undefined ? { name } : {}), catalog: catalogOf(command) }, io));
    });

  program
    .command('lock')
    .description('pin every MCP server tool of the catalog in toolman.lock; --update shows what changed and rewrites it')
    .option('--update', 'show what changed since the lock, field by field, and rewrite it')
    .option('--gate <suites...>', 'with --update: first re-run the suites that use changed tools, pinned definitions against new, and rewrite only if no suite\'s pass rate is worse')
    .addOption(new Option('-P, --provider <provider>', 'with --gate: run with this provider instead of the suites\' (provider or provider:model; repeatable)').argParser(collect))
    .option('--base-url <url>', 'with --gate: the API\'s base URL (a local OpenAI-compatible server, a proxy)')
    .option('--record <dir>', 'with --gate: save the runs under DIR/A and DIR/B, for --replay')
    .option('--replay <dir>', 'with --gate: answer from recordings under DIR/A and DIR/B')
    .option('--repeat <n>', 'with --gate: runs per case and provider')
    .option('--concurrency <n>', 'with --gate: runs at once', '4')
    .option('--max-cost <dollars>', 'with --gate: stop before a live run whose estimate is over this')
    .option('--prices <file>', 'with --gate: JSON prices {"MODEL": {"input": N, "output": N}}')
    .option('--json', 'print one JSON document')
    .action(async (opts, command: Command) => {
      const { lockCommand } = await import('./commands/lock.js');
      const interrupt = interruption();
      try {
        setCode(await lockCommand({ catalog: catalogOf(command), ...opts, signal: interrupt.signal }, io));
      } finally {
        interrupt.dispose();
      }
    });

  program
    .command('schema')
    .description('print the catalog format\'s JSON Schema (draft 2020-12)')
    .option('--json', 'the schema is JSON already: accepted for consistency')
    .action(async () => {
      const { schemaCommand } = await import('./commands/schema.js');
      setCode(await schemaCommand(io));
    });

  return program;
}

/** Runs toolman with `argv` (without node and script) and returns the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIO): Promise<ExitCode> {
  let code: ExitCode = EXIT.OK;
  const program = buildProgram(io, (c) => (code = c));
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.USAGE;
  }
  // With --json, a failure is a JSON document on stdout too, so scripts always get one.
  const json = argv.includes('--json') || argv.some((a, i) => (a === '--format' || a === '-f') && argv[i + 1] === 'json') || argv.includes('--format=json');
  const restoreConsole = routeLibraryConsole(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    return reportError(error, io, json, argv);
  } finally {
    restoreConsole();
  }
}

function reportError(thrown: unknown, io: CliIO, json: boolean, argv: readonly string[] = []): ExitCode {
  // Provider keys and tokens the process read are never part of what it says.
  const error = redactError(thrown, processSecrets);
  const document = (exit: ExitCode, kind: string, message: string, hint?: string) => {
    if (json) io.stdout.write(jsonDocument({ ok: false, error: { code: kind, message, ...(hint ? { hint } : {}), exit } }) + '\n');
    return exit;
  };
  if (error instanceof CommanderError) {
    // Commander has already printed its message (and help, for usage errors).
    if (error.exitCode === 0) return EXIT.OK;
    const hint = error.code === 'commander.excessArguments' ? excessArgumentHint(argv) : undefined;
    if (hint) io.stderr.write(`  hint: ${hint}\n`);
    return document(EXIT.USAGE, 'USAGE', error.message.replace(/^error: /, ''), hint);
  }
  const c = palette(colorEnabled(io, io.stderr));
  if (isToolmanError(error)) {
    io.stderr.write(`${c.red(ERROR_PREFIX)} ${error.message}\n`);
    if (error.hint) io.stderr.write(`  ${c.dim('hint:')} ${error.hint}\n`);
    return document(exitCodeFor(error), error.code, error.message, error.hint);
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`${c.red('toolman: internal error:')} ${message}\n`);
  if (io.env.TOOLMAN_DEBUG && error instanceof Error && error.stack) io.stderr.write(error.stack + '\n');
  else io.stderr.write(`  ${c.dim('hint:')} this is a bug in toolman; set TOOLMAN_DEBUG=1 for details and report it\n`);
  return document(EXIT.USAGE, 'INTERNAL', message);
}

/**
 * What an extra word most often was: a catalog file (`toolman show catalog.yaml tool`), or a
 * call's arguments written after the tool's name (`toolman call tool '{"a": 1}'`). Words that are
 * an option's value (`-c catalog.yaml`, `--args {...}`) are not extra and say nothing.
 */
function excessArgumentHint(argv: readonly string[]): string | undefined {
  const OPTIONS_WITH_VALUE = /^(-c|--catalog|-a|--args|--args-file|--batch|-p|--profile|-P|--provider|-m|--model)$/;
  const words = argv.filter((word, i) => !word.startsWith('-') && !(i > 0 && OPTIONS_WITH_VALUE.test(argv[i - 1]!)));
  if (argv.includes('call') && words.some((word) => /^\s*[{[]/.test(word))) return 'a call\'s arguments go in --args \'{"name": "value"}\' (or --args-file FILE)';
  if (words.some((word) => /\.ya?ml$/i.test(word))) return 'catalog files go after --catalog (-c FILE); only validate, list and profiles take them as arguments';
  return undefined;
}

export { processIO } from './io.js';

/**
 * Whether standard input is a terminal, without touching `process.stdin`: its getter makes the
 * stream (a ReadStream, a socket or a tty), a few ms of every one-shot `chat` that never reads it.
 */
function stdinIsTerminal(): boolean {
  return isatty(0);
}
