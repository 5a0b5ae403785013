/** @module One direction of one proxied connection (FaultProxy): chunks delivered in order, each after its latency. */
import type { Socket } from 'node:net';

/**
 * One direction of one connection: chunks are delivered in order, each no earlier than
 * `latencyMs` after it arrived.
 */
export class Lane {
  private readonly queue: Array<{ due: number; chunk: Buffer; onWrite: (() => void) | undefined }> =
    [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly target: Socket,
    private readonly latencyMs: () => number,
  ) {}

  push(chunk: Buffer, onWrite?: () => void): void {
    if (this.closed) return;
    const latency = this.latencyMs();
    if (latency <= 0 && this.queue.length === 0) {
      this.write(chunk, onWrite);
      return;
    }
    const last = this.queue[this.queue.length - 1];
    this.queue.push({ due: Math.max(Date.now() + latency, last?.due ?? 0), chunk, onWrite });
    this.schedule();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = Date.now();
        while (!this.closed && this.queue.length > 0 && this.queue[0]!.due <= now) {
          const { chunk, onWrite } = this.queue.shift()!;
          this.write(chunk, onWrite);
        }
        this.schedule();
      },
      Math.max(0, this.queue[0]!.due - Date.now()),
    );
  }

  private write(chunk: Buffer, onWrite: (() => void) | undefined): void {
    if (this.closed || this.target.destroyed) return;
    // Marked before the write: the server may answer before the write callback runs.
    onWrite?.();
    this.target.write(chunk);
  }
}
