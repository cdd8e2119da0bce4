/**
 * Prometheus text exposition format (version 0.0.4): families with HELP and TYPE lines, label
 * values escaped, and a summary kept over a sliding window of recent observations.
 */
export type MetricType = 'counter' | 'gauge' | 'summary';

export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
  /** Suffix of the sample name (`_sum`, `_count`). */
  readonly suffix?: string;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

export function renderMetrics(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n')}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(`${family.name}${sample.suffix ?? ''}${labelText(sample.labels)} ${numberText(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

function labelText(labels: Readonly<Record<string, string>> | undefined): string {
  if (labels === undefined || Object.keys(labels).length === 0) return '';
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`);
  return `{${pairs.join(',')}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Quantiles over the last `window` observations, plus the running sum and count. */
export class SlidingSummary {
  private readonly recent: number[] = [];
  private sum = 0;
  private count = 0;

  constructor(private readonly window = 512) {}

  observe(value: number): void {
    this.recent.push(value);
    if (this.recent.length > this.window) this.recent.shift();
    this.sum += value;
    this.count += 1;
  }

  samples(quantiles: readonly number[] = [0.5, 0.9, 0.99]): Sample[] {
    const sorted = [...this.recent].sort((a, b) => a - b);
    const at = (q: number): number => (sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number));
    return [
      ...quantiles.map((q) => ({ labels: { quantile: String(q) }, value: at(q) })),
      { suffix: '_sum', value: this.sum },
      { suffix: '_count', value: this.count },
    ];
  }
}
