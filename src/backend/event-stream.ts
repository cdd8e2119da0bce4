/**
 * A buffered single-consumer event stream: a backend pushes events as they happen; the consumer
 * iterates whenever it starts and still sees every event, then the stream ends when closed.
 */
import { ThundError } from '../errors.js';

export class EventStream<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  private iterated = false;

  push(event: T): void {
    if (this.closed) return;
    const waiter = this.waiting;
    if (waiter !== undefined) {
      this.waiting = undefined;
      waiter({ value: event, done: false });
    } else {
      this.buffer.push(event);
    }
  }

  close(): void {
    this.closed = true;
    const waiter = this.waiting;
    this.waiting = undefined;
    waiter?.({ value: undefined, done: true });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterated) throw new ThundError('RUN_EVENTS_ALREADY_READ', 'a run event stream has one consumer; it is already being read');
    this.iterated = true;
    return {
      next: (): Promise<IteratorResult<T>> => {
        const event = this.buffer.shift();
        if (event !== undefined) return Promise.resolve({ value: event, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}
