/**
 * The embedded Kubernetes API server's public surface (rxkrt/testing re-exports startApiServer).
 * @module rxkrt/apiserver
 */
export { startApiServer } from './startApiServer.js';
export type { ApiServer, ApiServerOptions, FaultOptions } from './startApiServer.js';
export type { RequestRecord } from './http/requestHandler.js';
export type { RequestMatcher } from './http/faults.js';
export type { PartitionMode } from './http/partitions.js';
export type { ExpiredWatchMode, WatchStats } from './watch/watchHub.js';
export type { Clock, TimerHandle } from './apimachinery/clock.js';
