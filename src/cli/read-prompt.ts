import { ErrorCode, ToolmanError } from '../shared/errors.js';

/** Reads a whole stream (piped standard input) as text, up to 1 MiB. */
export async function readPrompt(stream: NodeJS.ReadableStream, signal?: AbortSignal): Promise<string> {
  let text = '';
  const stop = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new ToolmanError(ErrorCode.USAGE, 'interrupted while reading the prompt')), { once: true }));
  const read = (async () => {
    for await (const chunk of stream) {
      text += String(chunk);
      if (text.length > 1 << 20) throw new ToolmanError(ErrorCode.USAGE, 'the piped prompt is over 1 MiB');
    }
    return text;
  })();
  stop.catch(() => undefined);
  return signal ? Promise.race([read, stop]) : read;
}
