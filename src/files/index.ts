/**
 * File sources: collections and singletons over watched files (YAML and JSON), for controllers configured
 * from a mounted ConfigMap or a folder of manifests.
 * @module rxkrt/files
 */
export { newFileCollection, type FileCollectionOptions } from './newFileCollection.js';
export { newFileSingleton, type FileSingletonOptions } from './newFileSingleton.js';
export { parseYamlDocuments } from './parseYamlDocuments.js';
export type { FileWatchOptions } from './watchPath.js';
