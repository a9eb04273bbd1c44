/**
 * The test kit (event tracker, marble helpers, the embedded API server).
 * @module rxkrt/testing
 */

/* Event tracker */
export { EventTracker, trackEvents, TrackerMismatchError } from './tracker.js';

/* Marble testing */
export {
  add,
  update,
  del,
  describeEvent,
  describeEvents,
  eventsToStrings,
  createMarbleScheduler,
  MarbleMismatchError,
  type DescribeOptions,
} from './marbles.js';

/* Randomized tests */
export { seededRandom } from './seededRandom.js';

/* Embedded API server */
export { startApiServer, type ApiServer, type ApiServerOptions, type FaultOptions } from '../apiserver/index.js';
