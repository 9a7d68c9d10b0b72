/**
 * Every diagnostic toolman reports, in one table. Codes are stable: users look them up in
 * docs/diagnostics.md and may silence them, so never renumber; retire a code instead.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface DiagnosticCodeInfo {
  severity: Severity;
  /** Short kebab-case name, shown in SARIF rules and docs. */
  name: string;
  summary: string;
  /**
   * Off unless a setting turns it on (`lint:`, `--rule`, `validate --quality`): advice that would
   * otherwise be one finding per tool. Its checks still count in the description-quality score.
   */
  optIn?: true;
}

export const DIAGNOSTIC_CODES = {
  // 00xx: files and YAML
  TM0001: { severity: 'error', name: 'yaml-syntax', summary: 'The file is not valid YAML.' },
  TM0002: { severity: 'error', name: 'duplicate-key', summary: 'A mapping has the same key twice; YAML would silently keep only one.' },
  TM0003: { severity: 'error', name: 'alias-limit', summary: 'YAML aliases expand past the safety limit (an "alias bomb").' },
  TM0004: { severity: 'error', name: 'include-missing', summary: 'An `include` names a file that cannot be read.' },
  TM0005: { severity: 'error', name: 'include-cycle', summary: 'Files include each other in a cycle.' },
  TM0006: { severity: 'error', name: 'not-a-catalog', summary: 'The file is not a catalog: not a mapping, or a mapping with neither `toolman:` nor `tools:`.' },
  // 01xx: catalog schema
  TM0101: { severity: 'error', name: 'unknown-key', summary: 'A key the catalog format does not define (often a typo).' },
  TM0102: { severity: 'error', name: 'wrong-type', summary: 'A value of the wrong type.' },
  TM0103: { severity: 'error', name: 'bad-value', summary: 'A value outside the allowed set or range.' },
  TM0104: { severity: 'error', name: 'missing-key', summary: 'A required key is missing.' },
  TM0105: { severity: 'error', name: 'schema-violation', summary: 'Any other violation of the catalog schema.' },
  // 02xx: tool names and descriptions
  TM0201: { severity: 'error', name: 'duplicate-tool', summary: 'Two tools (possibly in different included files) share a name.' },
  TM0202: { severity: 'error', name: 'invalid-tool-name', summary: 'The name is invalid for OpenAI and Anthropic (`^[a-zA-Z0-9_-]{1,64}$`).' },
  TM0203: { severity: 'warning', name: 'gemini-tool-name', summary: 'Gemini needs names that start with a letter or `_`.' },
  TM0204: { severity: 'warning', name: 'missing-description', summary: 'The tool has no description, so a model has to guess what it does.' },
  TM0205: { severity: 'warning', name: 'short-description', summary: 'The description is too short to guide a model.' },
  TM0206: { severity: 'warning', name: 'long-description', summary: 'The description is very long; it costs tokens on every request.' },
  TM0207: { severity: 'warning', name: 'undiscoverable-deferred-tool', summary: 'A deferred tool has neither `summary` nor `keywords` for tool search to find it by.' },
  TM0208: { severity: 'error', name: 'duplicate-definition', summary: 'A profile, MCP server or agent is defined twice across included files.' },
  TM0209: { severity: 'error', name: 'reserved-tool-name', summary: 'The name belongs to one of toolman\'s meta-tools (tool_search, discover_tools, get_tool_schema, invoke_tool, job_status, job_result, job_next, job_stop).' },
  TM0210: { severity: 'error', name: 'alias-shadowed', summary: 'An alias is another tool\'s name, or another tool\'s alias too: the name never reaches this tool.' },
  // 03xx: parameters and examples
  TM0301: { severity: 'error', name: 'invalid-parameters-schema', summary: 'The parameters are not a valid JSON Schema (ajv, strict mode).' },
  TM0302: { severity: 'error', name: 'parameters-not-object', summary: 'The root of `parameters` must be `type: object`.' },
  TM0303: { severity: 'error', name: 'required-not-property', summary: '`required` names a property that is not defined.' },
  TM0304: { severity: 'warning', name: 'property-without-description', summary: 'A property has no description.' },
  TM0305: { severity: 'error', name: 'unresolved-ref', summary: 'A `$ref` points at nothing.' },
  TM0306: { severity: 'error', name: 'empty-enum', summary: 'An `enum` has no values.' },
  TM0307: { severity: 'error', name: 'duplicate-enum-value', summary: 'An `enum` lists the same value twice.' },
  TM0308: { severity: 'error', name: 'invalid-example', summary: 'An entry of `examples` does not validate against `parameters`.' },
  TM0310: { severity: 'warning', name: 'invalid-default', summary: 'A `default` is a value its own schema refuses: not one of its `enum`, another type, or outside its bounds.' },
  TM0311: { severity: 'error', name: 'empty-range', summary: 'A lower bound is above its upper bound (`minimum` > `maximum`, `minLength` > `maxLength`...), so no value is valid.' },
  TM0309: { severity: 'error', name: 'unsupported-pattern', summary: 'A `pattern` uses syntax the linear-time matcher (RE2) does not run: lookaround or backreferences.' },
  // 033x: output schemas (`output_schema`, an MCP server's `outputSchema`)
  TM0330: { severity: 'error', name: 'invalid-output-schema', summary: 'The output schema is not a valid JSON Schema (ajv, strict mode), so no result could be checked against it.' },
  TM0331: { severity: 'info', name: 'output-schema-not-object', summary: 'The output schema\'s root is not `type: object`; `serve` does not advertise it to MCP clients (revision 2025-11-25 takes only objects).' },
  TM0332: { severity: 'error', name: 'mock-result-not-output', summary: 'A mock `result` does not match the tool\'s output schema, so every call it answers fails with invalid_output.' },
  // 04xx: provider compatibility
  TM0401: { severity: 'info', name: 'openai-strict-lossy', summary: 'OpenAI strict mode cannot express part of the schema; the formatter will drop or restate it.' },
  TM0402: { severity: 'info', name: 'openai-strict-impossible', summary: 'The tool cannot be sent in OpenAI strict mode; it will be sent non-strict.' },
  TM0403: { severity: 'warning', name: 'gemini-recursive-schema', summary: 'Gemini cannot be sent this schema: its references are recursive, or too many to inline.' },
  TM0404: { severity: 'warning', name: 'gemini-mixed-enum', summary: 'Gemini enums are strings only; mixed or non-string enums must be converted.' },
  TM0405: { severity: 'warning', name: 'tool-count-over-limit', summary: 'More tools are sent up front than a provider accepts in one request.' },
  // 05xx: flag conflicts
  TM0501: { severity: 'error', name: 'exclusive-deferred', summary: 'An exclusive tool cannot be deferred: it must be offered as the only tool.' },
  TM0502: { severity: 'error', name: 'takes-control-background', summary: 'A tool that takes control cannot run in the background.' },
  TM0503: { severity: 'warning', name: 'destructive-never-confirmed', summary: 'A destructive tool is set never to ask for confirmation.' },
  // 06xx: profiles and policies
  TM0601: { severity: 'error', name: 'unknown-profile', summary: '`extends` names a profile that does not exist.' },
  TM0602: { severity: 'error', name: 'profile-cycle', summary: 'Profiles extend each other in a cycle.' },
  TM0603: { severity: 'warning', name: 'pattern-matches-nothing', summary: 'A pattern in a profile or policy matches no tool.' },
  TM0604: { severity: 'error', name: 'invalid-pattern', summary: 'A pattern has an unknown prefix or is empty.' },
  TM0605: { severity: 'warning', name: 'override-matches-nothing', summary: 'An `overrides` entry matches no tool, so it changes nothing.' },
  // 07xx: handlers and sources
  TM0701: { severity: 'error', name: 'handler-kind', summary: 'A handler must have exactly one kind: mock, exec, http, module or plugin.' },
  TM0702: { severity: 'error', name: 'exec-argv-string', summary: '`exec.argv` must be a list; toolman never runs commands through a shell.' },
  TM0703: { severity: 'error', name: 'module-missing', summary: 'A `module` handler names a file that does not exist.' },
  TM0704: { severity: 'error', name: 'invalid-url', summary: 'An `http` handler or agent URL does not parse.' },
  TM0705: { severity: 'warning', name: 'unknown-template-variable', summary: 'A `{{name}}` template names no parameter of the tool.' },
  TM0706: { severity: 'error', name: 'native-tool-handler', summary: 'A provider-native tool has a handler; the provider runs native tools, toolman never does.' },
  TM0707: { severity: 'warning', name: 'mock-when-not-parameter', summary: 'A mock case matches on a key that is not a parameter, so it never matches.' },
  TM0708: { severity: 'error', name: 'exec-program-from-argument', summary: 'The program an `exec` handler runs (argv[0]) would come from an argument.' },
  TM0709: { severity: 'warning', name: 'exec-option-injection', summary: 'An argument begins with a template before `--`, so a value could become an option.' },
  TM0710: { severity: 'error', name: 'invalid-mock-matcher', summary: 'A mock `when` uses an unknown `$` matcher or a `$regex` that does not compile.' },
  TM0711: { severity: 'warning', name: 'path-outside-catalog', summary: 'A module file or exec working directory lies outside the catalog\'s folder.' },
  // 073x: stateful tools; 074x: handler plugins (their config is checked by loading the plugin: `validate` only)
  TM0730: { severity: 'error', name: 'config-without-plugin', summary: 'A handler has a `config` but names no `plugin`; only plugin handlers take one.' },
  TM0731: { severity: 'error', name: 'stateful-handler', summary: 'A `mode: stateful` tool has a handler that cannot yield: only module, plugin and mock handlers can.' },
  TM0732: { severity: 'error', name: 'stateful-takes-control', summary: 'A tool that takes control cannot be stateful: its first answer would end the turn, and nobody could read the rest.' },
  TM0733: { severity: 'warning', name: 'yields-not-stateful', summary: 'A mock case has `yields`, but the tool is not `mode: stateful`, so they are never used.' },
  TM0734: { severity: 'warning', name: 'stateful-exclusive', summary: 'An exclusive tool is stateful: while it is the only tool offered, job_next and job_stop are not, so its later yields cannot be read.' },
  TM0735: { severity: 'error', name: 'plugin-spec', summary: 'A `plugin` is not `package#kind` (or `./path#kind`): the package or the kind is empty.' },
  TM0736: { severity: 'warning', name: 'stateful-result-rules', summary: 'A stateful tool sets what applies to a result (`output_schema`, `references`, a result check, `truncation: summarize`), and a stateful call answers with job reports, so it is not applied.' },
  TM0740: { severity: 'error', name: 'plugin-not-found', summary: 'A plugin cannot be found from the catalog\'s folder (a package Node cannot resolve there, or a path that does not exist).' },
  TM0741: { severity: 'error', name: 'plugin-unusable', summary: 'A plugin could not be loaded, or exports nothing toolman can use (no `toolmanPlugin` of a supported `apiVersion`, a kind without `create`).' },
  TM0742: { severity: 'error', name: 'plugin-unknown-kind', summary: 'The plugin has no kind of this name.' },
  TM0743: { severity: 'error', name: 'plugin-config-invalid', summary: 'A plugin handler\'s `config` does not match the JSON Schema its plugin exports for the kind.' },
  TM0744: { severity: 'error', name: 'plugin-config-schema-invalid', summary: 'The JSON Schema a plugin exports for a kind\'s config does not compile, so no config can be checked against it.' },
  // 08xx: MCP servers (found when their tools join the catalog: test/mcp/)
  TM0801: { severity: 'error', name: 'mcp-tool-name-collision', summary: 'An MCP server\'s tool has the name of another tool; it is left out.' },
  TM0802: { severity: 'warning', name: 'mcp-server-unavailable', summary: 'An MCP server could not be started or listed; its tools are missing.' },
  TM0803: { severity: 'info', name: 'mcp-tools-stale', summary: 'An MCP server\'s tools come from a cached list past its freshness (the server\'s ttlMs; a day for a 2025-era server).' },
  TM0804: { severity: 'warning', name: 'mcp-tool-not-imported', summary: 'An MCP server\'s tool was skipped or its description cut.' },
  // 083x: the MCP client (2026-07-28, OAuth): runtime ones in test/mcp/, the entry's in fixtures
  TM0830: { severity: 'warning', name: 'mcp-invalid-param-header', summary: 'An HTTP MCP server\'s tool marks a parameter with an invalid `x-mcp-header`; it is left out.' },
  TM0831: { severity: 'warning', name: 'mcp-login-needed', summary: 'An HTTP MCP server asks for authorization and toolman holds no usable token for it (`toolman mcp login NAME`).' },
  TM0832: { severity: 'error', name: 'mcp-oauth-not-http', summary: '`oauth` on a stdio MCP server, which takes its credentials from its environment.' },
  TM0833: { severity: 'warning', name: 'mcp-root-not-folder', summary: 'A root of an MCP server entry is not a folder.' },
  // 085x: toolman.lock (`validate --locked`: test/lock/)
  TM0850: { severity: 'error', name: 'lock-unreadable', summary: 'toolman.lock is missing, is not the JSON toolman writes, or holds an entry whose hash does not match its definition.' },
  TM0851: { severity: 'error', name: 'tool-changed', summary: 'An MCP tool\'s definition (title, description, schemas, annotations) differs from the one toolman.lock pins.' },
  TM0852: { severity: 'error', name: 'tool-not-pinned', summary: 'An MCP server offers a tool that toolman.lock does not pin.' },
  TM0853: { severity: 'error', name: 'pinned-tool-gone', summary: 'toolman.lock pins a tool its MCP server no longer offers.' },
  TM0854: { severity: 'error', name: 'server-changed', summary: 'An MCP server\'s entry (command, arguments, URL...) or its reported name or version differs from toolman.lock.' },
  TM0855: { severity: 'error', name: 'server-not-pinned', summary: 'The catalog has an MCP server that toolman.lock does not pin.' },
  TM0856: { severity: 'warning', name: 'pinned-server-gone', summary: 'toolman.lock pins an MCP server the catalog no longer has.' },
  TM0857: { severity: 'error', name: 'server-unverified', summary: 'An MCP server could not be listed, so its tools could not be checked against toolman.lock.' },
  // 09xx: sub-agents
  TM0901: { severity: 'error', name: 'agent-unknown-profile', summary: 'A local agent\'s `profile` names a profile that does not exist.' },
  TM0903: { severity: 'info', name: 'agent-calls-itself', summary: 'A local agent\'s profile offers the agent to itself; such calls are refused.' },
  // 10xx: tool choice (what a model is likely to get wrong)
  TM1001: { severity: 'warning', name: 'confusable-tools', summary: 'Two tools offered together read so alike (description, name, parameters) that a model is likely to pick one for the other.' },
  // 11xx: description quality
  TM1101: { severity: 'info', name: 'no-usage-guidance', summary: 'The description does not say when to use the tool (or when not to).', optIn: true },
  TM1102: { severity: 'info', name: 'no-return-description', summary: 'The description does not say what the tool returns.', optIn: true },
  TM1103: { severity: 'info', name: 'destructive-effect-unstated', summary: 'A destructive tool\'s description does not say what is lost or whether it can be undone.', optIn: true },
  TM1104: { severity: 'info', name: 'parameter-format-unstated', summary: 'A parameter whose name implies a format (a date, an email, a URL...) does not say which.', optIn: true },
  TM1105: { severity: 'info', name: 'description-restates-name', summary: 'The description only repeats the tool\'s name.', optIn: true },
  // 12xx: tool poisoning (OWASP MCP Top 10, MCP03:2025)
  TM1201: { severity: 'error', name: 'hidden-text', summary: 'Text a display does not show but a model reads: Unicode tag characters or bidirectional controls.' },
  TM1202: { severity: 'warning', name: 'invisible-characters', summary: 'Zero-width characters or directional marks in a tool\'s text or names.' },
  TM1203: { severity: 'warning', name: 'instructions-to-model', summary: 'A tool\'s text gives the model instructions: to ignore its own, to hide something from the user, to read or pass on secret files.' },
  TM1204: { severity: 'warning', name: 'tool-shadowing', summary: 'A tool\'s text steers the model away from a tool of another source ("instead of X, use this").' },
  TM1205: { severity: 'warning', name: 'secret-parameter', summary: 'A parameter asks the model for a secret (a password, an API key, a token).' },
  TM1206: { severity: 'warning', name: 'effect-contradicts-text', summary: 'The declared effect (read-only, not destructive) contradicts what the tool\'s name or description says it does.' },
  // 13xx: MCP clients' limits (lint.clients, validate --client)
  TM1301: { severity: 'warning', name: 'client-tool-limit', summary: 'A profile offers more tools up front than an MCP client the catalog is meant for takes.' },
  TM1302: { severity: 'warning', name: 'client-schema-quirk', summary: 'An MCP client the catalog is meant for would change or drop a tool as written.' },
  // 14xx: what happens to results: summaries, references, evaluation checks
  TM1401: { severity: 'error', name: 'unknown-evaluation', summary: 'A tool\'s `evaluation` names a check that `evaluations:` does not define.' },
  TM1402: { severity: 'error', name: 'evaluation-kind', summary: 'An `evaluations:` entry must have exactly one of regex, not_regex, schema or rubric.' },
  TM1403: { severity: 'error', name: 'invalid-evaluation-regex', summary: 'An evaluation\'s regex or not_regex does not compile with RE2.' },
  TM1404: { severity: 'error', name: 'invalid-evaluation-schema', summary: 'An evaluation\'s schema is not valid JSON Schema, or does not compile.' },
  TM1405: { severity: 'warning', name: 'unused-evaluation', summary: 'An `evaluations:` entry that no tool lists, so it never runs.' },
  TM1406: { severity: 'error', name: 'invalid-reference-selector', summary: 'A `references:` selector does not parse (steps are .key, [\'key\'], [N] and [*] after $).' },
  TM1407: { severity: 'warning', name: 'resource-links-not-mcp', summary: '`references: resource_links` on a tool that is not an MCP server\'s, whose results have no resource_link blocks.' },
  TM1408: { severity: 'error', name: 'summarize-without-model', summary: 'A tool has `truncation: summarize`, but the catalog has no `budget.summarize` model.' },
  TM1409: { severity: 'warning', name: 'evaluation-option-ignored', summary: 'An evaluation sets something its kind ignores: provider or model on a check that is not a rubric, or `on: result` on a rubric.' },
  TM1410: { severity: 'warning', name: 'references-find-nothing', summary: 'The `references:` selectors find no source with a URL in any of the tool\'s mock results.' },
  TM1411: { severity: 'warning', name: 'mock-result-fails-evaluation', summary: 'A mock result fails one of the tool\'s result checks (`evaluation:` entries with `on: result`).' },
  TM1412: { severity: 'info', name: 'summarize-unused', summary: '`budget.summarize` is set, but no tool has `truncation: summarize`.' },
  TM1420: { severity: 'warning', name: 'exec-result-not-json', summary: 'An `exec` tool\'s result is `{exit_code, stdout, stderr}`, yet its `references:`, a schema result check or `output_schema` read it as the program\'s JSON: set `output: json`.' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
