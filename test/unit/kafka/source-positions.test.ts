import { describe, expect, it } from 'vitest';
import {
  KAFKA_OFFSETS_SUMMARY_KEY,
  mergePositions,
  positionsFromSummary,
  positionsFromSummaryValue,
  positionsToSummaryValue,
  type SourcePosition,
} from '../../../connectors/streaming-source.js';
import { InvalidInputError } from '../../../src/errors.js';

const positions: SourcePosition[] = [
  { topic: 'orders', partition: 1, nextOffset: 987n },
  { topic: 'orders', partition: 0, nextOffset: 1234n },
  { topic: 'cdc.public.users', partition: 0, nextOffset: 9_223_372_036_854_775_807n },
];

describe('source positions in a snapshot summary', () => {
  it('round-trips through one JSON value, int64 offsets exact, in a stable order', () => {
    const value = positionsToSummaryValue(positions);
    expect(JSON.parse(value)).toEqual({
      version: 1,
      topics: { 'cdc.public.users': { '0': '9223372036854775807' }, orders: { '0': '1234', '1': '987' } },
    });
    const back = positionsFromSummaryValue(value);
    const sorted = (list: SourcePosition[]): SourcePosition[] => [...list].sort((a, b) => `${a.topic}/${a.partition}`.localeCompare(`${b.topic}/${b.partition}`));
    expect(sorted(back)).toEqual(sorted(positions));
    expect(positionsToSummaryValue(back)).toBe(value);
  });

  it('reads the positions from a summary under the Thund key, and none when the key is absent', () => {
    const summary = { operation: 'append', [KAFKA_OFFSETS_SUMMARY_KEY]: positionsToSummaryValue(positions.slice(0, 1)) };
    expect(KAFKA_OFFSETS_SUMMARY_KEY).toBe('thund.kafka.offsets');
    expect(positionsFromSummary(summary)).toEqual([{ topic: 'orders', partition: 1, nextOffset: 987n }]);
    expect(positionsFromSummary({ operation: 'append' })).toEqual([]);
    expect(positionsFromSummary(undefined)).toEqual([]);
  });

  it('accepts offsets written as JSON numbers', () => {
    expect(positionsFromSummaryValue('{"version":1,"topics":{"t":{"3":17}}}')).toEqual([{ topic: 't', partition: 3, nextOffset: 17n }]);
  });

  it.each([
    ['not JSON', '{version', /is malformed: it is not JSON/],
    ['wrong version', '{"version":2,"topics":{}}', /malformed: .*version/],
    ['negative offset', '{"version":1,"topics":{"t":{"0":"-1"}}}', /malformed: .* at topics\.t\.0/],
    ['partition not a number', '{"version":1,"topics":{"t":{"x":"1"}}}', /partition numbers are non-negative integers/],
    ['offset beyond int64', '{"version":1,"topics":{"t":{"0":"9223372036854775808"}}}', /exceeds int64/],
    ['unknown field', '{"version":1,"topics":{},"extra":1}', /malformed/],
  ])('refuses a malformed value (%s) with an error naming the key', (_, value, message) => {
    let caught: unknown;
    try {
      positionsFromSummaryValue(value, 'thund.kafka.offsets.pipeline-a');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    const error = caught as InvalidInputError;
    expect(error.message).toContain('"thund.kafka.offsets.pipeline-a"');
    expect(error.message).toMatch(message);
    expect(error.context['summaryKey']).toBe('thund.kafka.offsets.pipeline-a');
  });

  it('refuses a position set naming one partition twice', () => {
    expect(() => positionsToSummaryValue([positions[0] as SourcePosition, { topic: 'orders', partition: 1, nextOffset: 5n }])).toThrow(/orders\/1 given twice/);
  });

  it('merges two position sets keeping the higher offset per partition', () => {
    const merged = mergePositions(
      [
        { topic: 'a', partition: 0, nextOffset: 10n },
        { topic: 'a', partition: 1, nextOffset: 50n },
      ],
      [
        { topic: 'a', partition: 0, nextOffset: 12n },
        { topic: 'a', partition: 1, nextOffset: 40n },
        { topic: 'b', partition: 0, nextOffset: 1n },
      ],
    );
    expect(merged).toEqual([
      { topic: 'a', partition: 0, nextOffset: 12n },
      { topic: 'a', partition: 1, nextOffset: 50n },
      { topic: 'b', partition: 0, nextOffset: 1n },
    ]);
  });
});
