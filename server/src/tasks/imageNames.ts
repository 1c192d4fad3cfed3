/** Rules about image names that both pre-pull and manifests apply. */

/**
 * SWE-bench's harness names the instance images it builds `sweb.eval.<arch>.<instance>:<tag>` and
 * never publishes them under that bare name; a published copy carries a namespace
 * (`swebench/sweb.eval…`), so only the bare name is build-only.
 */
export function isBuildOnlyImageName(image: string): boolean {
  return image.startsWith('sweb.eval.') && !image.includes('/');
}
