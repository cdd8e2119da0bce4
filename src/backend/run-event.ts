/**
 * What a backend reports while it runs a pipeline (RunEvent, RunResult and their parts). The engine
 * produces them, so they are defined beside it; this file hands them all on as the backend's stable
 * surface (src/backend/public-types.ts names the ones the package exports).
 */
export type * from '../engine/run-events.js';
export { RUN_PHASES, emptyCounts } from '../engine/run-events.js';
