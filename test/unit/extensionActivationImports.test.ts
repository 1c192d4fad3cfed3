/**
 * What loading the extension evaluates: the modules `dist/extension.js` runs at load are those
 * `extension/src/extension.ts` reaches through static imports of values. The language client
 * library, zod with the message schemas, and the YAML parser are loaded on first use instead
 * (docs/benchmarks.md, "Activation"); a static import of a value from any of them would bring
 * their cost back into every activation without any test noticing, so this one walks the graph.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

// Tests run from the repository's root, as the other unit tests read their files.
const root = process.cwd();

/** The modules a file imports values from, statically; type-only imports and `import()` excluded. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly && ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
      const named = statement.exportClause;
      const typeOnly = statement.isTypeOnly || (named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

/** Every source file and package the extension evaluates when it loads. */
function loadedAtActivation(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(root, 'extension', 'src', 'extension.ts')];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of valueImports(file)) {
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        assert.ok(existsSync(target), `${relative(root, file)} imports ${specifier}, which is not a TypeScript file here`);
        queue.push(target);
      } else {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string));
      }
    }
  }
  return { files, packages };
}

test('the extension loads no language client library, zod or YAML parser at activation', () => {
  const { packages } = loadedAtActivation();
  for (const later of ['vscode-languageclient', 'vscode-jsonrpc', 'vscode-languageserver-protocol', 'zod', 'yaml']) {
    assert.ok(
      !packages.has(later),
      `${later} is imported statically by a module the extension loads at activation; import its types with \`import type\` and load it on first use`,
    );
  }
  // The walk itself reaches the packages it should, so a broken walk cannot pass.
  assert.ok(packages.has('vscode'), [...packages].join(', '));
});

test('the message schemas are reached only through messageSchemas()', () => {
  const { files } = loadedAtActivation();
  assert.ok(files.has(join(root, 'extension', 'src', 'messageSchemas.ts')));
  assert.ok(!files.has(join(root, 'extension', 'src', 'messageSchemaSet.ts')));
});
