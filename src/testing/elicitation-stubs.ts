import type { CallAsker, ElicitAnswer, ElicitRequest } from '../manager/mcp-client.js';
import type { ElicitationStub } from './suite-types.js';
import { mismatch } from './value-matchers.js';

/** What a case's `elicitation:` answered, and what it could not. */
export interface CaseQuestions {
  asker: CallAsker;
  /** One failure reason per question no entry matched (each was declined). */
  unmatched: string[];
}

/**
 * The asker of one run of a case: a question a tool's MCP server asks during a call is answered
 * by the first `elicitation:` entry whose `when` matches it (server, message, mode, fields,
 * requested schema, URL). A question none matches is declined at once (the call goes on, and
 * never waits for a person who is not there) and becomes a failure reason of the case: a suite
 * says what its tools' servers may ask.
 */
export function caseQuestions(stubs: readonly ElicitationStub[]): CaseQuestions {
  const unmatched: string[] = [];
  const asker: CallAsker = async (request) => {
    const stub = stubs.find((s) => matches(s, request));
    if (!stub) {
      if (unmatched.length < 20) unmatched.push(`MCP server "${request.server}" asked "${request.message.slice(0, 200)}"${describeQuestion(request)}, and no elicitation: entry of the case matches it (declined)`);
      return { action: 'decline' };
    }
    return answerOf(stub, request);
  };
  return { asker, unmatched };
}

function matches(stub: ElicitationStub, request: ElicitRequest): boolean {
  const when = stub.when;
  if (!when) return true;
  if (when.mode && when.mode !== request.mode) return false;
  if (when.server && mismatch(request.server, when.server, 'server') !== null) return false;
  if (when.message && mismatch(request.message, when.message, 'message') !== null) return false;
  if (when.url && (request.mode !== 'url' || mismatch(request.url, when.url, 'url') !== null)) return false;
  if (when.fields || when.schema) {
    if (request.mode !== 'form') return false;
    if (when.fields && !when.fields.every((name) => Object.hasOwn(request.schema.properties, name))) return false;
    if (when.schema && mismatch({ properties: request.schema.properties, required: request.schema.required }, when.schema, 'schema') !== null) return false;
  }
  return true;
}

function answerOf(stub: ElicitationStub, request: ElicitRequest): ElicitAnswer {
  if (stub.action !== 'accept') return { action: stub.action };
  return request.mode === 'form' ? { action: 'accept', content: { ...stub.content } } : { action: 'accept' };
}

/** " (a form asking name, plan)" or " (a page at host)": enough to write the entry that answers it. */
function describeQuestion(request: ElicitRequest): string {
  if (request.mode === 'url') return ` (a page to visit at ${request.host})`;
  const fields = Object.keys(request.schema.properties);
  return fields.length ? ` (a form asking ${fields.slice(0, 10).join(', ')}${fields.length > 10 ? ', ...' : ''})` : ' (a form without fields)';
}
