import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { ProtocolError, ResourceNotFoundError, inputRequired } from '@modelcontextprotocol/server';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PromptOrResourceList, PromptsAndResources } from '../../src/serve/prompts-and-resources.js';
import { connectModern, modernRequest } from './modern-client.js';
import { connectHttp, waitUntil } from './serve-client.js';
import { serveInProcess } from './serve-in-process.js';

/**
 * The seam a gateway plugs into (`ServeOptions.promptsAndResources`): a source of prompts and
 * resources, served in both eras by the same handlers that serve toolman's empty lists today.
 * The source here is made up; what is tested is serve: paging (2026-07-28) or the whole list
 * (2025-11-25), get and read routed to the source, errors, completion, the capabilities and the
 * list changes each era hears of.
 */
function madeUpSource() {
  const listeners = new Set<(list: PromptOrResourceList) => void>();
  let prompts = Array.from({ length: 120 }, (_, i) => ({ name: `up_p${String(i).padStart(3, '0')}`, description: `Prompt ${i}`, arguments: [{ name: 'topic', required: true }] }));
  const source: PromptsAndResources = {
    prompts: () => prompts,
    resources: () => [{ uri: 'mem://notes/a', name: 'a', mimeType: 'text/plain' }],
    resourceTemplates: () => [{ uriTemplate: 'mem://notes/{id}', name: 'note' }],
    getPrompt: async (params) => {
      if (params.name === 'up_ask') return inputRequired({ inputRequests: { topic: inputRequired.elicit({ message: 'Which topic?', requestedSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] } }) } });
      if (!prompts.some((p) => p.name === params.name)) throw new ProtocolError(-32602, `Unknown prompt: ${params.name}`);
      return { messages: [{ role: 'user', content: { type: 'text', text: `${params.name} about ${params.arguments?.topic}` } }] };
    },
    readResource: async (params) => {
      if (params.uri !== 'mem://notes/a') throw new ResourceNotFoundError(params.uri);
      return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'note a' }] };
    },
    complete: async (params) => ({ completion: { values: ['alpha', 'beta'].filter((v) => v.startsWith(params.argument.value)) } }),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const change = (list: PromptOrResourceList) => {
    if (list === 'prompts') prompts = [...prompts, { name: `up_p${prompts.length}`, description: 'new', arguments: [{ name: 'topic', required: true }] }];
    for (const listener of listeners) listener(list);
  };
  return { source, change, listeners };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function serve(source?: PromptsAndResources) {
  const running = await serveInProcess(source ? { promptsAndResources: source } : {});
  cleanups.push(() => running.close());
  return running.url;
}

async function modern(url: string): Promise<ModernClient> {
  const { client } = await connectModern(url);
  cleanups.push(() => client.close());
  return client;
}

async function legacy(url: string) {
  const { client, transport } = await connectHttp(url);
  cleanups.push(() => client.close());
  return { client, transport };
}

describe('prompts and resources from a source, 2026-07-28', () => {
  it('pages the lists with a cache hint, gets, reads and completes through the source, and declares what it has', async () => {
    const { source } = madeUpSource();
    const url = await serve(source);
    const discover = await modernRequest(url, 'server/discover');
    expect(discover.response?.result?.capabilities).toMatchObject({ prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} });
    const page1 = await modernRequest(url, 'prompts/list');
    expect(page1.response?.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect((page1.response?.result?.prompts as unknown[]).length).toBe(100);
    const page2 = await modernRequest(url, 'prompts/list', { cursor: page1.response?.result?.nextCursor });
    expect((page2.response?.result?.prompts as { name: string }[]).map((p) => p.name)).toEqual(Array.from({ length: 20 }, (_, i) => `up_p${100 + i}`));
    expect((await modernRequest(url, 'prompts/list', { cursor: 'bm90IG1pbmU' })).response?.error).toMatchObject({ code: -32602, message: expect.stringContaining('prompt list') });
    const client = await modern(url);
    expect((await client.listPrompts()).prompts).toHaveLength(120);
    expect((await client.getPrompt({ name: 'up_p007', arguments: { topic: 'tides' } })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'up_p007 about tides' } }]);
    expect((await client.listResources()).resources).toEqual([{ uri: 'mem://notes/a', name: 'a', mimeType: 'text/plain' }]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([{ uriTemplate: 'mem://notes/{id}', name: 'note' }]);
    expect((await client.readResource({ uri: 'mem://notes/a' })).contents).toEqual([{ uri: 'mem://notes/a', mimeType: 'text/plain', text: 'note a' }]);
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'up_p007' }, argument: { name: 'topic', value: 'al' } })).completion.values).toEqual(['alpha']);
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow(/Unknown prompt: nope/);
    await expect(client.readResource({ uri: 'mem://notes/zzz' })).rejects.toThrow(/mem:\/\/notes\/zzz/);
  });

  it('lets a source answer input_required (what a gateway relays from an upstream server)', async () => {
    const { source } = madeUpSource();
    const url = await serve(source);
    const answer = await modernRequest(url, 'prompts/get', { name: 'up_ask' }, { capabilities: { elicitation: { form: {} } } });
    expect(answer.response?.result).toMatchObject({ resultType: 'input_required', inputRequests: { topic: { method: 'elicitation/create', params: { message: 'Which topic?' } } } });
  });

  it('tells a listen subscription of prompt and resource list changes', async () => {
    const { source, change } = madeUpSource();
    const url = await serve(source);
    const client = await modern(url);
    const heard: string[] = [];
    client.setNotificationHandler('notifications/prompts/list_changed', () => void heard.push('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('resources'));
    const subscription = await client.listen({ promptsListChanged: true, resourcesListChanged: true });
    expect(subscription.honoredFilter).toEqual({ promptsListChanged: true, resourcesListChanged: true });
    change('prompts');
    change('resources');
    await waitUntil(() => heard.length === 2);
    expect(heard.sort()).toEqual(['prompts', 'resources']);
    expect((await client.listPrompts()).prompts).toHaveLength(121);
    subscription.close();
  });
});

describe('prompts and resources from a source, 2025-11-25', () => {
  it('sends each list whole, gets, reads and completes through the source, and tells the session of changes', async () => {
    const { source, change, listeners } = madeUpSource();
    const url = await serve(source);
    const { client, transport } = await legacy(url);
    expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} });
    const all = await client.listPrompts();
    expect(all.prompts).toHaveLength(120);
    expect(all.nextCursor).toBeUndefined();
    expect((await client.getPrompt({ name: 'up_p001', arguments: { topic: 'moss' } })).messages[0]!.content).toEqual({ type: 'text', text: 'up_p001 about moss' });
    expect((await client.readResource({ uri: 'mem://notes/a' })).contents[0]).toMatchObject({ text: 'note a' });
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'up_p001' }, argument: { name: 'topic', value: 'b' } })).completion.values).toEqual(['beta']);
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow(/Unknown prompt: nope/);
    const heard: string[] = [];
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.push('prompts'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.push('resources'));
    // The session's listener and the 2026-07-28 one.
    expect(listeners.size).toBe(2);
    change('prompts');
    change('resources');
    await waitUntil(() => heard.length === 2);
    expect(heard.sort()).toEqual(['prompts', 'resources']);
    // A session that ends stops listening.
    await transport.terminateSession();
    await waitUntil(() => listeners.size === 1);
  });
});

describe('toolman\'s own: none', () => {
  it('answers empty lists in both eras, refuses gets and reads, and declares no completion and no list changes', async () => {
    const url = await serve();
    const discover = await modernRequest(url, 'server/discover');
    expect(discover.response?.result?.capabilities).toMatchObject({ prompts: {}, resources: {} });
    expect(discover.response?.result?.capabilities).not.toHaveProperty('completions');
    expect((discover.response?.result?.capabilities as { prompts: object }).prompts).toEqual({});
    expect((await modernRequest(url, 'prompts/list')).response?.result?.prompts).toEqual([]);
    expect((await modernRequest(url, 'resources/read', { uri: 'file:///etc/passwd' })).response?.error).toMatchObject({ code: -32602 });
    expect((await modernRequest(url, 'completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } })).response?.error).toMatchObject({ code: -32601 });
    const { client } = await legacy(url);
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.getPrompt({ name: 'x' })).rejects.toThrow(/toolman serve has no prompts/);
  });
});
