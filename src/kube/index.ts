/**
 * Kubernetes sources and sinks over @kubernetes/client-node.
 * @module rxkrt/kube
 */
export { newInformer, informerStats, type InformerOptions, type InformerStats } from './newInformer.js';
export { pluralOf, collectionPath, type ResourceRef } from './resourcePath.js';
export { backoffDelay, type BackoffPolicy } from './backoff.js';
export { ApiError, requestJson } from './request.js';
export {
  step as informerStep,
  INITIAL_STATE as INFORMER_INITIAL_STATE,
  type InformerState,
  type InformerInput,
  type InformerEffect,
} from './informerMachine.js';
export { newStatusWriter, type StatusWriter, type StatusWriterOptions, type StatusWriterStats } from './statusWriter.js';
export { mergePatchOf } from './mergePatchOf.js';
