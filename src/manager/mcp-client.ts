import { dirname } from 'node:path';
import { loadCatalog } from '../catalog/load-catalog.js';
import type { McpServerConfig } from '../catalog/types.js';
import { nearest } from '../shared/did-you-mean.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import { SecretSet } from '../shared/secrets.js';
import type { LoginResult } from '../mcp/oauth/login.js';

/**
 * The facade's MCP client pieces for drivers: how a driver answers what a server asks during a
 * call (the `--yes` policy; the REPL and suites bring their own `McpInteraction`), the browser,
 * and `toolman mcp login|logout`.
 */
export { describeDefaults, formDefaults, MAX_SAMPLING_TOKENS, singleConfirmation, yesInteraction, type ElicitAnswer, type ElicitRequest, type McpInteraction, type SampleAnswer, type SampleRequest } from '../mcp/mcp-interaction.js';
export { openInBrowser, type BrowserOutcome } from '../mcp/oauth/browser.js';
/** `toolman serve` passes a server's questions on to the client whose call it is about. */
export { mayBeAsked, relayInteraction, withCallAsker, type CallAsker } from '../mcp/question-relay.js';
export type { LoginResult } from '../mcp/oauth/login.js';
/**
 * The servers' prompts and resources as drivers show them and hand them to a conversation
 * (`ToolManager.mcpContent()` lists, gets and reads): light modules, no SDK.
 */
export { describeArguments, promptText, type McpPrompt, type McpPromptArgument, type McpPromptMessage, type McpPromptResult } from '../mcp/server-prompts.js';
export { attachmentText, describeRead, type McpResource, type McpResourceRead, type McpResourceTemplate } from '../mcp/server-resources.js';
export { blockText, resourceText, type McpContentBlock, type McpResourceContent } from '../mcp/content-blocks.js';
export type { McpContentProblem, McpPromptList, McpResourceList, ResourceRef, ServerContent } from '../mcp/server-content.js';

/** Which server: an entry of the catalog (by name), or a URL given on the command line. */
export type ServerTarget = { catalogs: readonly string[]; name: string } | { url: string };

export interface McpLoginOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  open: (url: string) => Promise<void>;
  flags?: { clientId?: string; clientSecretEnv?: string; scopes?: string[] };
  signal?: AbortSignal;
  /** Where values the login read (a client secret) are registered, to be redacted from what is said. */
  secrets?: SecretSet;
}

/** `toolman mcp login NAME|--url URL`: signs in to one HTTP server through the browser (loaded lazily: the SDK and the callback server). */
export async function mcpLogin(target: ServerTarget, options: McpLoginOptions): Promise<LoginResult> {
  const { config, baseDir } = serverEntry(target, options.cwd);
  const { loginToServer } = await import('../mcp/oauth/login.js');
  return loginToServer({ config, baseDir, env: options.env, secrets: options.secrets ?? new SecretSet(), open: options.open, ...(options.flags ? { flags: options.flags } : {}), ...(options.signal ? { signal: options.signal } : {}) });
}

/** `toolman mcp logout NAME|--url URL|--issuer ISSUER`: forgets the tokens toolman holds; says which issuers held them. */
export async function mcpLogout(target: ServerTarget | { issuer: string }, options: { cwd: string; env: Record<string, string | undefined> }): Promise<{ issuers: string[] }> {
  const { logout } = await import('../mcp/oauth/login.js');
  if ('issuer' in target) return logout(options.env, { issuer: target.issuer });
  const { config } = serverEntry(target, options.cwd);
  if (config.url === undefined) throw new ToolmanError(ErrorCode.USAGE, `MCP server "${config.name}" is a stdio server: toolman holds no login for it`);
  const { serverLaunch } = await import('../mcp/server-launch.js');
  const launch = serverLaunch(config, options.cwd, options.env, new SecretSet());
  return logout(options.env, { url: launch.kind === 'http' ? launch.url : config.url });
}

/** The server entry a login names, with the folder its relative paths resolve from. */
function serverEntry(target: ServerTarget, cwd: string): { config: McpServerConfig; baseDir: string } {
  if ('url' in target) {
    if (!URL.canParse(target.url) || !/^https?:$/.test(new URL(target.url).protocol)) throw new ToolmanError(ErrorCode.USAGE, `--url ${JSON.stringify(target.url.slice(0, 80))} is not an http(s) URL`);
    return { config: { name: new URL(target.url).host, url: target.url, args: [], env: {}, headers: {}, prefix: '', include: [], exclude: [], defaults: {}, file: '', pointer: '' }, baseDir: cwd };
  }
  const loaded = loadCatalog(target.catalogs, { cwd });
  const config = loaded.catalog.mcpServers.get(target.name);
  if (!config) {
    const names = [...loaded.catalog.mcpServers.keys()];
    const suggestions = nearest(target.name, names);
    throw new ToolmanError(ErrorCode.UNKNOWN_TOOL, `the catalog has no MCP server ${JSON.stringify(target.name)}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''}`, { hint: names.length ? `its servers: ${names.join(', ')}` : 'the catalog has no mcp_servers; --url URL names a server directly' });
  }
  const file = loaded.sources.get(config.file)?.absolutePath;
  return { config, baseDir: file ? dirname(file) : cwd };
}
