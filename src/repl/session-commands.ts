import { CHAT_PROVIDERS, DEFAULT_MODELS, PROVIDER_LABELS } from '../manager/facts.js';
import type { ProviderName } from '../providers/types.js';
import { closest } from '../shared/did-you-mean.js';
import type { CommandHost, Runner } from './slash-commands.js';

/**
 * The slash commands about what the conversation talks to and what it costs: `/model`,
 * `/provider`, `/context`, `/mcp`. The conversation does the work (conversation/); these say
 * what it did in the user's words.
 */
export const SESSION_COMMANDS: Record<string, Runner> = {
  model: async (args, host) => {
    const { conversation } = host.context;
    if (!args) {
      host.output(
        [
          { text: `${conversation.provider} ${conversation.model}` },
          { text: `/model NAME goes on with another model of ${conversation.provider}; /provider NAME [MODEL] with another provider`, style: 'dim' },
        ],
        'model',
      );
      return;
    }
    const model = modelName(args);
    if (!model) return host.note('error', `"${args}" is not a model name`, 'a model name is one word, like gpt-4o or claude-sonnet-5');
    if (notWhileRunning(host, 'model')) return;
    await switched(host, { model });
  },

  provider: async (args, host) => {
    const { conversation } = host.context;
    if (!args) {
      host.output(
        CHAT_PROVIDERS.map((name) => ({ label: `  ${name === conversation.provider ? '*' : ' '} ${name}`, labelWidth: 22, text: `${PROVIDER_LABELS[name as ProviderName] ?? name} · default model ${DEFAULT_MODELS[name as ProviderName]}` })),
        'providers (/provider NAME [MODEL] switches)',
      );
      return;
    }
    const [name, modelArg, ...rest] = args.split(/\s+/);
    if (rest.length) return host.note('error', `/provider takes a provider and a model, not "${args}"`, 'like /provider anthropic, or /provider openai gpt-4o-mini');
    if (!(CHAT_PROVIDERS as readonly string[]).includes(name!)) {
      const suggestion = closest(name!, [...CHAT_PROVIDERS]);
      return host.note('error', `no provider "${name}"${suggestion ? `; did you mean ${suggestion}?` : ''}`, `providers: ${CHAT_PROVIDERS.join(', ')}`);
    }
    const model = modelArg === undefined ? undefined : modelName(modelArg);
    if (modelArg !== undefined && !model) return host.note('error', `"${modelArg}" is not a model name`);
    if (notWhileRunning(host, 'provider')) return;
    await switched(host, { provider: name as ProviderName, ...(model ? { model } : {}) });
  },
};

/** Switches, then says what happened: the new model, how much of the conversation came along, what did not. */
async function switched(host: CommandHost, target: { provider?: ProviderName; model?: string }): Promise<void> {
  const result = await host.switchModel(target);
  const { from, to, kept, notes } = result;
  const same = from.provider === to.provider && from.model === to.model;
  host.note('success', same ? `already ${to.provider} ${to.model}` : `now ${to.provider} ${to.model} (was ${from.provider} ${from.model}); the conversation goes on${kept ? ` with its ${kept} message${kept === 1 ? '' : 's'}` : ''}`);
  for (const note of notes) host.note('warning', note);
}

function notWhileRunning(host: CommandHost, command: string): boolean {
  if (!host.state.running) return false;
  host.note('warning', `/${command} waits until the turn ends (Ctrl-C cancels it)`);
  return true;
}

/** A model's name as typed: one word of printable characters. */
function modelName(text: string): string | undefined {
  const name = text.trim();
  return /^[\w.:/@+-]{1,200}$/.test(name) ? name : undefined;
}
