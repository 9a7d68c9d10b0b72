import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Stops a program toolman started and everything it started: its process group (toolman starts
 * each program as the leader of a new session and group), and, on Linux, every descendant found
 * through /proc, which also reaches children that moved into a session of their own while their
 * parent is alive. A daemon that detached after its parent exited has no link left to follow;
 * toolman then stops reading its output instead of waiting for it (exec-runner).
 */
export function killProcessTree(pid: number): void {
  const descendants = process.platform === 'linux' ? linuxDescendants(pid) : [];
  for (const target of [pid, ...descendants]) {
    signal(-target);
    signal(target);
  }
}

function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone, or not ours to signal
  }
}

/** Descendants of `root`, from each process's parent id in /proc/<pid>/stat. */
function linuxDescendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (command) state ppid ...": the command may hold spaces and parentheses, so read after the last ")".
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * Kills every process (Linux: read from /proc) whose environment holds one of `markers`, entries
 * toolman put in the environment of each program and MCP server it started. That reaches what
 * nothing else does: a daemon that detached into a session of its own after its parent exited
 * still carries the environment it inherited. Used when toolman closes (and from its exit hook),
 * so nothing it started outlives it.
 */
export function killMarkedProcesses(markers: string | readonly string[]): void {
  const wanted = new Set(typeof markers === 'string' ? [markers] : markers);
  if (process.platform !== 'linux' || wanted.size === 0) return;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (environ.split('\u0000').some((variable) => wanted.has(variable))) signal(Number(entry));
  }
}

/** A fresh marker for what one runner or server starts: `TOOLMAN_RUN=<toolman's pid>-<uuid>`, as [name, value]. */
export function runMarker(): [string, string] {
  return ['TOOLMAN_RUN', `${process.pid}-${randomUUID()}`];
}
