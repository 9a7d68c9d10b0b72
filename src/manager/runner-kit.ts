/**
 * What a driver needs to layer runners over a session's (the test runner's stubs, through
 * `SessionRequest.wrapRunners`): the failure a runner throws, and argument templates.
 */
export { ToolFailure, type AnyToolRunner, type RunContext, type RunnerRegistry, type ToolRunner, type YieldStream } from '../execute/runner.js';
export { scriptedStream } from '../execute/scripted-stream.js';
export { fillValue } from '../execute/templates.js';
