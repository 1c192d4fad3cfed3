/**
 * How the config check scales with the number of keys, and whether the language server stays
 * responsive while it checks a large file (issue 21, item 6):
 * - `config-check-<n>-keys`: `checkConfigText` (parse, linear duplicate search, schema, preflight)
 *   against the `yaml` library's own parse of the same text without its duplicate search
 *   (`uniqueKeys: false`), the least any check must do; median of runs, goal ratio ≤ 1.5;
 * - `lsp-hover-during-large-check`: a hover in a small file asked while the server checks a 1 MB
 *   experiment YAML (the built server, `dist/server.js`), against the same hover on an idle server;
 *   goal: ours under 100 ms.
 */
import { performance } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { checkConfigText } from '../server/src/config/index.js';
import type { BenchResult } from './result.js';
import { round1, summarize } from './stats.js';
import { startServerSession } from './serverSession.js';
import { repoRoot } from './yamlServers.js';
import type { FigureOutcome } from './yamlFigures.js';

/** A `verl_overrides` section of `keys` distinct keys (the section that takes free-form keys). */
function yamlOfKeys(keys: number): string {
  const lines = ['verl_overrides:'];
  for (let i = 0; i < keys; i++) lines.push(`  trainer.option_number_${i}: ${i}`);
  return `${lines.join('\n')}\n`;
}

function medianMs(runs: number, work: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  return summarize(samples).median;
}

function scaleFigure(keys: number, runs: number): BenchResult {
  const text = yamlOfKeys(keys);
  // One untimed round each, so neither side pays for the first compilation of its code.
  checkConfigText(text);
  parseDocument(text, { uniqueKeys: false });
  const ours = medianMs(runs, () => checkConfigText(text));
  const anchor = medianMs(runs, () => parseDocument(text, { uniqueKeys: false }));
  const ratio = ours / anchor;
  return {
    name: `config-check-${keys / 1000}k-keys`,
    what: `checkConfigText on a ${(text.length / 1e6).toFixed(2)} MB experiment YAML of ${keys} keys, median of ${runs}`,
    unit: 'ms',
    ours: round1(ours),
    anchor: round1(anchor),
    anchorName: 'yaml parseDocument, uniqueKeys false',
    ratio: Math.round(ratio * 1000) / 1000,
    goal: 'ratio <= 1.5',
    pass: ratio <= 1.5,
  };
}

async function hoverFigure(log: (line: string) => void): Promise<BenchResult> {
  const session = await startServerSession(repoRoot);
  try {
    const small = `file://${repoRoot}/configs/bench-small.yaml`;
    const large = `file://${repoRoot}/configs/bench-large.yaml`;
    const c = session.connection;
    await c.sendNotification('textDocument/didOpen', { textDocument: { uri: small, languageId: 'yaml', version: 1, text: 'env:\n  max_steps: 6\n' } });
    const hover = async (): Promise<number> => {
      const start = performance.now();
      await c.sendRequest('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 4 } });
      return performance.now() - start;
    };
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await hover());
    const busy: number[] = [];
    const text = yamlOfKeys(50_000);
    for (let round = 1; round <= 5; round++) {
      // Each round opens the large file afresh and asks the hover 20 ms later, while it is checked.
      await c.sendNotification('textDocument/didOpen', { textDocument: { uri: `${large}-${round}`, languageId: 'yaml', version: 1, text } });
      await new Promise((done) => setTimeout(done, 20));
      busy.push(await hover());
      await new Promise((done) => setTimeout(done, 1500));
    }
    const ours = summarize(busy).max;
    const anchor = summarize(idle).median;
    log(`lsp hover: idle median ${round1(anchor)} ms; while a ${(text.length / 1e6).toFixed(2)} MB file is checked: ${busy.map(round1).join(', ')} ms`);
    return {
      name: 'lsp-hover-during-large-check',
      what: `hover in a small YAML 20 ms after opening a ${(text.length / 1e6).toFixed(1)} MB experiment YAML, worst of 5, built server`,
      unit: 'ms',
      ours: round1(ours),
      anchor: round1(anchor),
      anchorName: 'the same hover on an idle server, median of 20',
      ratio: Math.round((ours / anchor) * 1000) / 1000,
      goal: 'ours < 100 ms',
      pass: ours < 100,
    };
  } finally {
    await session.stop();
  }
}

export async function benchYamlScale(log: (line: string) => void): Promise<FigureOutcome> {
  const results: BenchResult[] = [];
  for (const [keys, runs] of [
    [20_000, 7],
    [40_000, 5],
    [160_000, 3],
  ] as const) {
    const result = scaleFigure(keys, runs);
    log(`config check, ${keys} keys: ours ${result.ours} ms, yaml's parse ${result.anchor} ms`);
    results.push(result);
  }
  const notMeasured: FigureOutcome['notMeasured'] = [];
  try {
    results.push(await hoverFigure(log));
  } catch (error) {
    notMeasured.push({ name: 'lsp-hover-during-large-check', reason: error instanceof Error ? error.message : String(error) });
  }
  return { results, notMeasured };
}
