/**
 * Kubernetes sources and sinks over @kubernetes/client-node.
 * @module rxkrt/kube
 */
export { newInformer, informerStats } from './newInformer.js';
export { fromInformer, type InformerLike, type FromInformerOptions } from './fromInformer.js';
export type { InformerOptions, InformerStats } from './informerOptions.js';
export { stripServerFields, LAST_APPLIED_ANNOTATION, METADATA_LIST_ACCEPT, METADATA_WATCH_ACCEPT } from './objectShape.js';
export { pluralOf, collectionPath, type ResourceRef } from './resourcePath.js';
export { backoffDelay, jitteredDelay, type BackoffPolicy } from './backoff.js';
export { ApiError, requestJson, type RequestOptions } from './request.js';
export { RequestTimeoutError } from './requestTimeoutError.js';
export { PaginationError } from './paginationError.js';
export { RejectedObjectError } from './rejectedObjectError.js';
export {
  step as informerStep,
  INITIAL_STATE as INFORMER_INITIAL_STATE,
  type InformerState,
  type InformerInput,
  type InformerEffect,
} from './informerMachine.js';
export { newStatusWriter, type StatusWriter, type StatusWriterOptions, type StatusWriterStats } from './statusWriter.js';
export { StatusWriteError } from './statusWriteError.js';
export {
  newReconciler,
  type Reconciler,
  type ReconcilerOptions,
  type ReconcilerStats,
  type ReconcileContext,
  type ReconcileResult,
} from './newReconciler.js';
export { ReconcileError } from './reconcileError.js';
export type { WorkQueueStats, WorkContext, WorkResult } from './keyedWorkQueue.js';
export { mergePatchOf } from './mergePatchOf.js';
export type { Gate } from './gate.js';
export { setCondition, findCondition, isConditionTrue, type Condition, type ConditionUpdate, type ConditionStatus } from './conditions.js';
export { newFinalizer, type FinalizerOptions } from './newFinalizer.js';
export { newEventRecorder, type EventRecorder, type EventRecorderOptions, type EventRecorderStats } from './newEventRecorder.js';
export { newLeaderElector, type LeaderElector, type LeaderElectorOptions } from './newLeaderElector.js';
export { newShardRing, SHARD_GROUP_LABEL, SHARD_VIEW_ANNOTATION, type ShardRing, type ShardRingOptions } from './newShardRing.js';
export { HashRing, hash32 } from './hashRing.js';
