/**
 * The shape of the evidence registry (capabilities.ts): what a user can rely on, how far, and the
 * tests that prove it.
 */
import type { Lane } from './lanes.js';

export const STATUSES = ['Available', 'Preview', 'Experimental', 'Planned'] as const;
export type Status = (typeof STATUSES)[number];

/** One test, named as vitest's JSON report names it: its describe blocks and title joined by spaces. */
export interface Proof {
  readonly lane: Lane;
  /** The test file, from the repository root. */
  readonly file: string;
  readonly test: string;
  /** The file that writes the test's title, when a shared suite defines it for the test file. */
  readonly titleIn?: string;
}

export interface Capability {
  readonly id: string;
  readonly area: string;
  /** One line, for users. */
  readonly description: string;
  readonly status: Status;
  /** Why the status is not Available, or what the capability leaves out. */
  readonly note?: string;
  readonly proofs: readonly Proof[];
}

export function proof(lane: Lane, file: string, test: string, titleIn?: string): Proof {
  return titleIn === undefined ? { lane, file, test } : { lane, file, test, titleIn };
}
