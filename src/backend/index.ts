/** The execution-backend surface: stable and additive (new members may appear, none change meaning). */
export type * from './public-types.js';
export { RUN_PHASES, emptyCounts } from './run-event.js';
export { EventStream } from './event-stream.js';
export { unsupportedElements } from './capability-check.js';
