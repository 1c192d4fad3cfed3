/** Datasets: image manifests of task files (converters and registration come with the datasets issue). */
export { collectImages, writeManifest, readManifest, type ImageCollection, type Manifest } from './manifest.js';
