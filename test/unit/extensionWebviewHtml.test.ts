/**
 * The overview webview's page: a strict Content Security Policy that lets only our nonce-tagged
 * script run, and no markup injection through the title.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNonce, webviewCsp, webviewHtml } from '../../extension/src/webviewHtml.js';

const page = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'n0nce',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
  title: 'Overview: a.yaml',
  loading: 'Loading…',
};

test('the CSP denies everything by default and allows scripts only with the nonce', () => {
  const directives = new Map(
    webviewCsp(page)
      .split('; ')
      .map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
  );
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('script-src'), "'nonce-n0nce'");
  assert.equal(directives.get('style-src'), page.cspSource);
  assert.doesNotMatch(webviewCsp(page), /unsafe-inline|unsafe-eval|\*/);
});

test('the page carries the CSP, loads only the nonce-tagged bundle and has no inline script', () => {
  const html = webviewHtml(page);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-n0nce&#39;/);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]?.[1] ?? '', /nonce="n0nce" src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\.js"/);
  assert.equal(scripts[0]?.[2], '');
  assert.doesNotMatch(html, /<style|style=/);
});

test('the title is escaped and every load gets a new nonce', () => {
  const html = webviewHtml({ ...page, title: 'Overview: <img src=x onerror=alert(1)>.yaml' });
  assert.doesNotMatch(html, /<img/);
  assert.notEqual(newNonce(), newNonce());
  assert.match(newNonce(), /^[A-Za-z0-9_-]{24}$/);
});
