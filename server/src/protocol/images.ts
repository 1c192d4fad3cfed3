/**
 * Container images: the result of pre-pulling a dataset's images (`server/src/sandbox/prepull.ts`)
 * and of building the offline images (`server/src/sandbox/images/`): their names, tags, the
 * labels that record what each was built from, and one build's result as `gp images build --json`
 * prints it. The CLI and the extension read these definitions; nothing else declares them.
 */
import { z } from 'zod';

/** What pre-pulling one image did; `build-only` images are built locally and never pulled. */
export const prepullStatusSchema = z.enum(['pulled', 'present', 'build-only', 'failed']);
export type PrepullStatus = z.infer<typeof prepullStatusSchema>;

export const prepullResultSchema = z.object({
  image: z.string().min(1),
  status: prepullStatusSchema,
  /** Pull attempts made; 0 when the image was present or build-only. */
  attempts: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
  /** The last attempt's error, for `failed`. */
  error: z.string().optional(),
});
export type PrepullResult = z.infer<typeof prepullResultSchema>;

/**
 * The images `gp images build` always knows, in build order: the sample is built `FROM` the base.
 * Besides these, every folder of `docker/samples/` gives one image, `sample-<folder>`, built
 * after them (see `sampleImageName`).
 */
export const imageNames = ['base', 'sample'] as const;
export const fixedImageNameSchema = z.enum(imageNames);
export type FixedImageName = z.infer<typeof fixedImageNameSchema>;

/** A folder of `docker/samples/` whose name can be part of an image name: lower case words joined by `-`. */
export const sampleFolderPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A sample repository's image: `sample-<folder>` for the folder `docker/samples/<folder>/`. */
export const sampleImageNameSchema = z.templateLiteral(['sample-', z.string().regex(sampleFolderPattern)]);
export type SampleImageName = z.infer<typeof sampleImageNameSchema>;

export const imageNameSchema = z.union([fixedImageNameSchema, sampleImageNameSchema]);
export type ImageName = z.infer<typeof imageNameSchema>;

/** What `gp images build` accepts as an argument: an image, or `samples` for every sample folder. */
export const allSamplesSelector = 'samples';
export const imageSelectorSchema = z.union([imageNameSchema, z.literal(allSamplesSelector)]);
export type ImageSelector = z.infer<typeof imageSelectorSchema>;

/** The tag each fixed image is built under; `docker/repoenv_sample/Dockerfile` names the base's tag. */
export const imageTags: Readonly<Record<FixedImageName, string>> = {
  base: 'graph-planner/base:latest',
  sample: 'graph-planner/repoenv-sample:latest',
};

/** The image name of the sample folder `docker/samples/<folder>/`. */
export function sampleImageName(folder: string): SampleImageName {
  return `sample-${folder}`;
}

/** The tag an image is built under; a sample folder's image is `graph-planner/sample-<folder>:latest`. */
export function imageTag(name: ImageName): string {
  return name === 'base' || name === 'sample' ? imageTags[name] : `graph-planner/${name}:latest`;
}

/**
 * Labels on the images we build. `recipe` (base) and `context` (the sample images) hold a sha256
 * of what the image was built from; `baseImage` is the id of the base a derived image was built
 * on. A build is skipped when the existing image's labels match.
 */
export const imageLabels = {
  image: 'graph-planner.image',
  recipe: 'graph-planner.recipe',
  context: 'graph-planner.context',
  baseImage: 'graph-planner.base-image',
  mirror: 'graph-planner.mirror',
  suite: 'graph-planner.suite',
} as const;

export const imageBuildStatusSchema = z.enum(['built', 'up-to-date', 'failed']);
export type ImageBuildStatus = z.infer<typeof imageBuildStatusSchema>;

/** What one image build did. */
export const imageBuildResultSchema = z.object({
  name: imageNameSchema,
  /** The tag, e.g. `graph-planner/base:latest`. */
  image: z.string().min(1),
  status: imageBuildStatusSchema,
  durationMs: z.number().nonnegative(),
  /** One line for people: what was done, or why it failed and what to do. */
  message: z.string(),
  /** The image id after the build (the existing one when up to date); absent on failure. */
  id: z.string().optional(),
});
export type ImageBuildResult = z.infer<typeof imageBuildResultSchema>;
