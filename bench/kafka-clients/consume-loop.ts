/** What every client's consume loop in this benchmark gets and gives back. */
export interface ConsumeTarget {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly groupId: string;
  /** Stop once this many records have been read. */
  readonly records: number;
}

export type ConsumeLoop = (target: ConsumeTarget, tally: Tally) => Promise<void>;

/** Counts records and value bytes; each loop reads every value's length so the bytes are touched. */
export class Tally {
  records = 0;
  valueBytes = 0;
  firstAt = 0;
  lastAt = 0;
  private finished: (() => void) | undefined;
  readonly done: Promise<void>;

  constructor(private readonly expected: number) {
    this.done = new Promise((resolve) => (this.finished = resolve));
  }

  /** Adds one record's value; true once every expected record is in. */
  add(value: Uint8Array | null | undefined): boolean {
    // Records a client hands over after the last expected one are not counted.
    if (this.lastAt !== 0) return true;
    if (this.records === 0) this.firstAt = performance.now();
    this.records++;
    this.valueBytes += value?.length ?? 0;
    if (this.records < this.expected) return false;
    if (this.lastAt === 0) {
      this.lastAt = performance.now();
      this.finished?.();
    }
    return true;
  }

  get complete(): boolean {
    return this.lastAt !== 0;
  }
}
