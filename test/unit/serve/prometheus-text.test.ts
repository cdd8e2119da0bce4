import { describe, expect, it } from 'vitest';
import { renderMetrics, SlidingSummary } from '../../../src/app/serve/prometheus-text.js';

describe('Prometheus text format', () => {
  it('writes HELP and TYPE lines, labels with escaped values, and special numbers', () => {
    const text = renderMetrics([
      { name: 'a_total', help: 'counts "a"', type: 'counter', samples: [{ value: 3 }] },
      { name: 'lag', help: 'lag', type: 'gauge', samples: [{ labels: { topic: 'x"y\\z', partition: '0' }, value: 7 }, { value: NaN }] },
    ]);
    expect(text).toBe(
      ['# HELP a_total counts "a"', '# TYPE a_total counter', 'a_total 3', '# HELP lag lag', '# TYPE lag gauge', 'lag{topic="x\\"y\\\\z",partition="0"} 7', 'lag NaN', ''].join('\n'),
    );
  });

  it('summarises a sliding window: quantiles of recent values, sum and count of all', () => {
    const summary = new SlidingSummary(4);
    for (const v of [100, 1, 2, 3, 4]) summary.observe(v);
    const samples = summary.samples([0.5, 1]);
    expect(samples).toEqual([
      { labels: { quantile: '0.5' }, value: 3 },
      { labels: { quantile: '1' }, value: 4 },
      { suffix: '_sum', value: 110 },
      { suffix: '_count', value: 5 },
    ]);
  });
});
