import { relative } from 'node:path';
import { lockFilePath, readLock, type ToolLock } from '../lock/lock-file.js';
import { pinServerTools, type LockMode, type PinNote } from '../lock/pin-tools.js';
import type { ToolDefinition } from '../lock/tool-definition.js';
import type { ToolAdmission } from '../mcp/mcp-servers.js';
import { ErrorCode, ToolmanError } from '../shared/errors.js';
import type { SecretSet } from '../shared/secrets.js';
import type { ToolManager } from './tool-manager.js';

/** The lock beside a manager's first root catalog: its path, the path as messages show it, and the lock (undefined when there is none). */
export function catalogLock(manager: Pick<ToolManager, 'rootFiles' | 'cwd'>): { path: string; display: string; found: ReturnType<typeof readLock> } {
  const path = lockFilePath(manager.rootFiles[0] ?? 'toolman.yaml');
  const display = relative(manager.cwd, path) || path;
  return { path, display, found: readLock(path, display) };
}

/**
 * The admission toolman.lock makes for the catalog's MCP servers, or none when there is no lock
 * (nothing is pinned then). `pinned` without a lock is an error: there is nothing to serve.
 */
export function lockAdmission(manager: Pick<ToolManager, 'rootFiles' | 'cwd' | 'secrets'>, mode: LockMode, onAccepted: (note: PinNote) => void): ToolAdmission | undefined {
  const { display, found } = catalogLock(manager);
  if (!found) {
    if (mode === 'pinned') throw new ToolmanError(ErrorCode.USAGE, `no ${display} to take the pinned definitions from`, { hint: 'write it first: toolman lock' });
    return undefined;
  }
  return admission(found.lock, mode, manager.secrets, onAccepted);
}

function admission(lock: ToolLock, mode: LockMode, secrets: SecretSet, onAccepted: (note: PinNote) => void): ToolAdmission {
  // Each accepted difference is said once, however often the server is listed again.
  const said = new Set<string>();
  return (server, tools, context) => {
    const result = pinServerTools(lock, mode, server, tools, { ...context, redact: (definition) => redactDefinition(definition, secrets) });
    for (const note of result.accepted) {
      const key = `${note.tool}\u0000${note.reason}`;
      if (!said.has(key)) (said.add(key), onAccepted(note));
    }
    return { tools: result.tools, refused: result.refused };
  };
}

/**
 * A definition with every secret value redacted, as it is written into the lock: a server can
 * echo a token it was given into a description, and the lock is committed.
 */
export function redactDefinition(definition: ToolDefinition, secrets: SecretSet): ToolDefinition {
  if (secrets.size === 0) return definition;
  const text = JSON.stringify(definition);
  const redacted = secrets.redact(text);
  if (redacted === text) return definition;
  try {
    return JSON.parse(redacted) as ToolDefinition;
  } catch {
    // Redaction cut through JSON syntax (a secret that is a JSON fragment): keep only the name.
    return { name: definition.name, description: '[redacted: the definition held a secret]' };
  }
}
