/**
 * Events pushed by callbacks (the executor's, the SDK stream's) read as an async iterable: the
 * bridge between work that reports as it goes and a consumer that pulls with `for await`.
 */
export class EventChannel<T> {
  private readonly queue: T[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(event: T): void {
    if (this.closed) return;
    this.queue.push(event);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      if (this.queue.length) {
        yield this.queue.shift()!;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
