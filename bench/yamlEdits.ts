/**
 * The deterministic edit sequence for the YAML latency figures. Three numeric fields of the
 * fixture (marked `# bench edits this line`) are toggled in turn between an allowed and a
 * forbidden value, so every edit changes the set of edited lines that carry a diagnostic. That
 * matters because servers may skip a push when nothing changed, and because yaml-language-server
 * publishes without a document version: the diagnostics set is the only way to tell which edit a
 * push answers.
 */

/** One field the benchmark edits, found by its key on a marked line of the fixture. */
interface EditField {
  readonly key: string;
  /** A value the schema accepts, different for each k so every edit changes the text. */
  readonly valid: (k: number) => string;
  /** A value the schema rejects (beyond its maximum). */
  readonly invalid: (k: number) => string;
}

const fields: readonly EditField[] = [
  { key: 'temperature', valid: (k) => (0.5 + (k % 5) / 10).toFixed(1), invalid: (k) => (2.5 + (k % 5) / 10).toFixed(1) },
  { key: 'num_return_sequences', valid: (k) => String(1 + (k % 8)), invalid: (k) => String(65 + (k % 8)) },
  { key: 'max_steps', valid: (k) => String(4 + (k % 8)), invalid: (k) => String(1001 + (k % 8)) },
];

const marker = '# bench edits this line';

export interface EditScript {
  /** The text opened first: the fixture with the first field already invalid. */
  readonly initialText: string;
  /** Zero-based lines of the edited fields whose diagnostics should be present after opening. */
  readonly initialExpected: ReadonlySet<number>;
  /** Zero-based lines of all edited fields; diagnostics elsewhere are ignored. */
  readonly watchedLines: ReadonlySet<number>;
  /** Edit k (0-based, counted over the whole session): the full text and the lines expected to carry a diagnostic. */
  readonly edit: (k: number) => { readonly text: string; readonly expected: ReadonlySet<number> };
}

/**
 * How a field is made invalid: `value` puts its number beyond the maximum (an edit of one scalar,
 * which our server patches without re-parsing), `key` misspells its key (a structural edit, which
 * forces a full parse on every server).
 */
export type EditMode = 'value' | 'key';

/** Builds the script from the fixture text; throws when a marked field is missing (a broken fixture is a bug). */
export function editScript(fixture: string, mode: EditMode = 'value'): EditScript {
  const lines = fixture.split('\n');
  const lineOf = fields.map((field) => {
    const index = lines.findIndex((line) => line.includes(marker) && line.trimStart().startsWith(`${field.key}:`));
    if (index < 0) throw new Error(`fixture has no line "${field.key}: … ${marker}"`);
    return index;
  });
  const render = (invalid: readonly boolean[], k: number): string => {
    const out = [...lines];
    fields.forEach((field, i) => {
      const index = lineOf[i] ?? -1;
      const broken = invalid[i] === true;
      const value = broken && mode === 'value' ? field.invalid(k) : field.valid(k);
      const key = broken && mode === 'key' ? `${field.key}_typo` : field.key;
      out[index] = (out[index] ?? '').replace(new RegExp(`^(\\s*)${field.key}(:\\s*)\\S+`), `$1${key}$2${value}`);
    });
    return out.join('\n');
  };
  const expectedOf = (invalid: readonly boolean[]): ReadonlySet<number> => new Set(lineOf.filter((_, i) => invalid[i] === true));
  const initial = fields.map((_, i) => i === 0);
  return {
    initialText: render(initial, 0),
    initialExpected: expectedOf(initial),
    watchedLines: new Set(lineOf),
    edit: (k) => {
      // Edit k flips field k mod 3; the state after k edits follows from counting the flips.
      const invalid = fields.map((_, i) => {
        const flips = Math.floor((k - i) / fields.length) + 1;
        const flipped = k >= i ? flips : 0;
        return (initial[i] === true) !== (flipped % 2 === 1);
      });
      return { text: render(invalid, k + 1), expected: expectedOf(invalid) };
    },
  };
}
