/**
 * At most `max` tasks at once, fewer while the provider pushes back: a 429 halves the limit and
 * holds new starts for the wait the server asked for; each run of `max` successes then gives one
 * slot back (additive increase, multiplicative decrease, as TCP does).
 */
export class AdaptiveLimiter {
  private active = 0;
  private limit: number;
  private resumeAt = 0;
  private streak = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly max: number) {
    this.limit = Math.max(1, max);
  }

  get current(): number {
    return this.limit;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.active--;
      this.pump();
    }
  }

  /** The provider said "too many requests": back off. */
  backoff(waitMs: number): void {
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.streak = 0;
    this.resumeAt = Math.max(this.resumeAt, Date.now() + Math.max(0, waitMs));
  }

  succeeded(): void {
    if (this.limit >= this.max) return;
    if (++this.streak >= this.max) {
      this.limit++;
      this.streak = 0;
      this.pump();
    }
  }

  private acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
  }

  private pump(): void {
    const wait = this.resumeAt - Date.now();
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, wait);
      return;
    }
    while (this.active < this.limit && this.waiting.length) {
      this.active++;
      this.waiting.shift()!();
    }
  }
}
