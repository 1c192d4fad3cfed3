/**
 * What *Continue from Here…*'s pickers offer (forkFlow.ts) as values a launch takes: the planner
 * model as `--set` overrides of the config's `backends` keys (their meaning is the config schema's,
 * docs/reference/configuration.md), the counts, and the check of an endpoint's URL. No `vscode` import, so
 * the unit tests check them directly.
 */

/** The model agent's planner: the parent run's config as it was, the embedded CPU model, or an endpoint by its URL. */
export type ForkModel = { readonly kind: 'config' } | { readonly kind: 'embedded' } | { readonly kind: 'endpoint'; readonly url: string };

/** The counts offered: one continuation, or a few to see how far they spread. The launch takes up to 16. */
export const forkCounts = [1, 2, 4, 8] as const;

/**
 * The overrides that choose the model. An endpoint in the parent's config would win over
 * `planner_backend: embedded` (the schema says so), so the embedded model clears it.
 */
export function forkChoiceSets(model: ForkModel): string[] {
  switch (model.kind) {
    case 'config':
      return [];
    case 'embedded':
      return ['backends.planner_backend=embedded', 'backends.planner_endpoint=null'];
    case 'endpoint':
      return ['backends.planner_backend=openai', `backends.planner_endpoint=${model.url}`];
  }
}

/** Why a typed endpoint is not one the config takes (an http or https URL), or undefined when it is. */
export function validEndpoint(text: string): string | undefined {
  if (text === '') return 'Give the server’s base URL, for example http://127.0.0.1:8000/v1';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `Not a URL: ${text}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `An http or https URL, not ${url.protocol}`;
  // The value travels as one `--set KEY=VALUE` argument, read as YAML: a space or a `#` would change what it says.
  if (/[\s#]/.test(text)) return 'A URL without spaces or #';
  return undefined;
}
