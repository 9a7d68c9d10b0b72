/**
 * The facade's MCP client pieces for drivers: how a driver answers what a server asks during a
 * call (the `--yes` policy; the REPL and suites bring their own `McpInteraction`).
 */
export { MAX_SAMPLING_TOKENS, singleConfirmation, yesInteraction, type ElicitAnswer, type ElicitRequest, type McpInteraction, type SampleAnswer, type SampleRequest } from '../mcp/mcp-interaction.js';
export { openInBrowser, type BrowserOutcome } from '../mcp/oauth/browser.js';
