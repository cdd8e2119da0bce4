/**
 * bench/cdc: the peak RSS of each phase of the run. Linux keeps one high-water mark per process
 * (VmHWM); writing 5 to /proc/self/clear_refs resets it to the current RSS, so reading it at the
 * end of a phase and resetting it gives that phase's peak. Where that cannot be done (another
 * system), only the whole run's peak is known and every phase shows it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export class PhasePeaks {
  private readonly peaks = new Map<string, number>();
  private resettable = true;

  /** Records the peak since the previous phase ended under `phase`'s name, and starts the next. */
  end(phase: string): void {
    this.peaks.set(phase, this.highWaterMiB());
    if (!this.resettable) return;
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      this.resettable = false;
    }
  }

  /** Peak RSS in MiB of the named phases (the highest of them), or of the whole run when phases cannot be told apart. */
  peakOf(phases: readonly string[]): number {
    if (!this.resettable) return this.highWaterMiB();
    return Math.max(...phases.map((phase) => this.peaks.get(phase) ?? 0));
  }

  report(): string {
    return [...this.peaks].map(([phase, mib]) => `${phase} ${mib}`).join(', ');
  }

  private highWaterMiB(): number {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
      if (match?.[1] !== undefined) return Math.round(Number(match[1]) / 1024);
    } catch {
      // not Linux: the process's own figure below
    }
    this.resettable = false;
    return Math.round(process.resourceUsage().maxRSS / 1024);
  }
}
