/**
 * Declarative, incremental, glitch-free collections for Kubernetes controllers on RxJS 7.
 * @module rxkrt
 */

/* Objects, keys, equality */
export { keyOf } from './core/keyOf.js';
export { equals } from './core/equals.js';
export { labelsOf, selectorOf, isSubset, selectsNonEmpty, type Labels } from './core/labels.js';
export {
  parseLabelSelector,
  matchesLabelSelector,
  labelSelectorOf,
  type LabelSelector,
  type LabelSelectorRequirement,
  type LabelSelectorOperator,
} from './core/labelSelector.js';

/* Events */
export { latest, items, type Event, type EventType, type AddEvent, type UpdateEvent, type DeleteEvent } from './core/event.js';

/* Errors */
export { KeyError, TransformError, UsageError } from './core/errors.js';

/* Types */
export type {
  Collection,
  Singleton,
  Syncer,
  Registration,
  CollectionOptions,
  HandlerContext,
  EventHandler,
  BatchHandler,
  CollectionDump,
  InputDump,
  DebugRegistry,
  DebugTarget,
} from './core/types.js';

/* Transactions, strict mode, logging */
export { batch } from './engine/transaction.js';
export { setStrictMode, isStrictMode } from './core/strict.js';
export { setLogger, consoleLogger, type Logger, type LogFn, type LogFields, type LogLevel } from './core/logger.js';

/* Collections */
export { newStaticCollection, type StaticCollection } from './collections/newStaticCollection.js';
export { newStatic, type StaticSingleton } from './collections/newStatic.js';
export { newCollection } from './collections/newCollection.js';
export { newManyCollection } from './collections/newManyCollection.js';
export { newSingleton } from './collections/newSingleton.js';
export { newManyFromNothing } from './collections/newManyFromNothing.js';

/* Fetching */
export { fetch, fetchOne, fetchOrList, partialFetch } from './fetch/fetch.js';
export {
  filterKey,
  filterKeys,
  filterObjectName,
  filterIndex,
  filterLabel,
  filterLabelSelector,
  filterSelects,
  filterSelectsNonEmpty,
  filterGeneric,
  type FetchFilter,
  type IndexLike,
} from './fetch/filters.js';

/* Debugging */
export { DebugHandler, type DebugCollection } from './observe/DebugHandler.js';
export { collectionStats, type CollectionStats } from './observe/collectionStats.js';

/* Composition */
export { joinCollection } from './collections/join/joinCollection.js';
export { joinWithMergeCollection } from './collections/join/joinWithMergeCollection.js';
export { nestedJoinWithMergeCollection, nestedJoinCollection } from './collections/join/nestedJoinCollection.js';
export { mapCollection } from './collections/mapCollection.js';
export { newIndex, newNamespaceIndex, unnamedIndex, namespaceOf, type Index } from './collections/newIndex.js';
export type { IndexObject } from './collections/indexCollection.js';
export { newRecomputeTrigger, type RecomputeTrigger } from './collections/newRecomputeTrigger.js';
export { newRecomputeProtected, type RecomputeProtected } from './collections/newRecomputeProtected.js';
export { newOptionsBuilder, type OptionsBuilder } from './core/optionsBuilder.js';

/* RxJS: sources, live queries, operators */
export { collectionFromEvents, type ObservableSourceOptions } from './collections/collectionFromEvents.js';
export { singletonFromValues } from './collections/singletonFromValues.js';
export { query$, queryOne$, compute$ } from './collections/query.js';
export { toCollection, type ToCollectionOptions } from './operators/toCollection.js';
export { deriveCollection, deriveMany } from './operators/deriveCollection.js';
export { batches, changes, type KeyedChange } from './operators/changes.js';

/* Status */
export {
  newStatusCollection,
  newStatusManyCollection,
  type ObjectWithStatus,
  type StatusResult,
} from './collections/newStatusCollection.js';
