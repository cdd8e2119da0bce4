/** The run-event stream: buffered until read, in order, ending when closed, one consumer. */
import { describe, expect, it } from 'vitest';
import { EventStream } from '../../../src/backend/event-stream.js';

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

describe('EventStream', () => {
  it('delivers events pushed before and after the consumer starts, in order, and ends on close', async () => {
    const stream = new EventStream<number>();
    stream.push(1);
    stream.push(2);
    const reading = collect(stream);
    await Promise.resolve();
    stream.push(3);
    setTimeout(() => {
      stream.push(4);
      stream.close();
      stream.push(5);
    }, 5);
    expect(await reading).toEqual([1, 2, 3, 4]);
  });

  it('has one consumer', () => {
    const stream = new EventStream<number>();
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/one consumer/);
  });
});
