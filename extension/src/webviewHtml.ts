/**
 * The HTML page of our webviews (the experiment overview, the trajectory viewer). Pure (no `vscode` import), so that the
 * Content Security Policy is unit-tested: nothing loads but our own script, and only with the
 * nonce of this load; no inline script or style runs. The page's styles come from the script
 * through constructable style sheets (`adoptedStyleSheets`), which the style policy does not
 * govern, as do the Lit-based `@vscode-elements/elements` components; so `style-src` needs no
 * `'unsafe-inline'`.
 */
import { randomBytes } from 'node:crypto';

export interface WebviewPage {
  /** `webview.cspSource`: the origin of the webview's own resources. */
  readonly cspSource: string;
  /** A fresh random value per load, so that no injected script can carry it. */
  readonly nonce: string;
  /** `webview.asWebviewUri` of the page's bundle in `dist/`. */
  readonly scriptUri: string;
  readonly title: string;
  /** What the page says until its script has rendered. */
  readonly loading: string;
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

export function webviewCsp(page: Pick<WebviewPage, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${page.nonce}'`,
    `style-src ${page.cspSource}`,
    `font-src ${page.cspSource}`,
    `img-src ${page.cspSource}`,
  ].join('; ');
}

export function webviewHtml(page: WebviewPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(webviewCsp(page))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(page.title)}</title>
</head>
<body>
<main id="root" aria-live="polite"><p>${escapeHtml(page.loading)}</p></main>
<script nonce="${escapeHtml(page.nonce)}" src="${escapeHtml(page.scriptUri)}"></script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
