// Public surface of the embedded Kubernetes API server used by rxkrt's test kit.
export { startApiServer } from './startApiServer.js';
export type { ApiServer, ApiServerOptions, FaultOptions } from './startApiServer.js';
export type { RequestRecord } from './requestHandler.js';
export type { RequestMatcher } from './faults.js';
export type { ExpiredWatchMode } from './watch.js';
export type { Clock, TimerHandle } from './clock.js';
