/**
 * Six micro-batches of (word, minutes:seconds after 2026-01-01 00:00) with late rows, for the
 * tumbling-window tests over files and over a Kafka topic; the comments follow a 10-minute window
 * and a 10-minute watermark delay.
 */
export const FILES: [string, string][][] = [
  [['a', '01:00'], ['b', '05:00'], ['a', '12:00']], // watermark after: 00:02
  [['a', '03:00'], ['a', '31:00'], ['b', '14:00']], // 00:03 behind nothing; watermark after: 00:21
  // 20:30 is behind the watermark 00:21 but its window [20, 30) is open: kept. 15:00 and 09:00
  // belong to windows that ended at or before 00:21: dropped.
  [['b', '20:30'], ['a', '15:00'], ['b', '09:00'], ['c', '25:00']],
  [['c', '44:00']], // watermark after: 00:34 → [20, 30) final
  [['a', '29:59'], ['a', '41:00']], // 29:59 late ([20, 30) final), 41:00 kept
  [['d', '59:00']], // watermark after: 00:49 → [30, 40) final; [40, 50) stays open
];
