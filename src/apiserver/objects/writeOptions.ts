// Options shared by the create, update and delete operations.
import type { Owner } from '../patch/managedFields.js';
import type { StoredObject } from '../storage/storedObject.js';

/** How a write is made and recorded. */
export interface WriteOptions {
  /** `?dryRun=All`: run every check and hook that has no side effect, store nothing. */
  dryRun?: boolean;
  /** The field manager recorded for `Update` operations (`?fieldManager=`, else from the User-Agent). */
  manager: string;
  /** Replaces the default `Update` bookkeeping of managedFields (server-side apply passes its own). */
  ownership?: (before: StoredObject | undefined, after: StoredObject) => Owner[];
}
