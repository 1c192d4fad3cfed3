/**
 * The finding about an experiment YAML as a whole, decided before any schema or preflight rule
 * runs: a file that is not text gets one error and nothing else (the parser would report noise on
 * every line), and an empty file gets one note that every default applies, so it does not pass
 * silently.
 */
import { isScalar } from 'yaml';
import { classifyText, describeNotText } from '../util/textFile.js';
import type { LocatedFinding } from './check.js';
import type { YamlSource } from './yamlSource.js';

function whole(code: string, severity: 'error' | 'info', message: string, start: number, length: number): LocatedFinding {
  // One character wide where the text has one, so an editor underlines the offending byte.
  return { code, severity, message, path: [], related: [], fixes: [], range: { start, end: Math.min(start + 1, length) }, relatedRanges: [] };
}

/** Empty, only whitespace, only comments, or a lone `---` / `null`: no settings at all. */
function hasNoSettings(source: YamlSource): boolean {
  const contents = source.doc.contents;
  return source.problems.length === 0 && (contents === null || (isScalar(contents) && contents.value === null));
}

/**
 * `config/not-text` (an error, and the only finding) or `config/empty` (an info, the only finding
 * unless command-line overrides add values); undefined for an ordinary document.
 */
export function wholeFileFinding(source: YamlSource): LocatedFinding | undefined {
  const kind = classifyText(source.text);
  if (kind.kind === 'not-text')
    return whole('config/not-text', 'error', describeNotText(kind.problem, 'an experiment YAML'), kind.problem.charOffset, source.text.length);
  if (hasNoSettings(source)) {
    return whole(
      'config/empty',
      'info',
      'The file sets nothing, so every setting takes its default (`gp config resolve FILE --print-config` shows them).',
      0,
      source.text.length,
    );
  }
  return undefined;
}
