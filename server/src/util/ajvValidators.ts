/**
 * JSON Schema validators that are compiled once, and in the bundles ahead of time. ajv turns a
 * schema into JavaScript source when it compiles it; for the experiment schema that took 0.6 s per
 * validator at every start of the language server and of `gp`, before the first diagnostics
 * (docs/benchmarks.md). A module that holds validators exports their specs as `validatorSpecs` and
 * the compiled functions beside them (`compileValidators`); the build replaces such a module with
 * ajv's own standalone source for the same specs (`standaloneModule`, scripts/precompiledValidators.mjs),
 * so a bundle loads ready-made code, while the sources and tests compile at load as before.
 */
import { Ajv2020, type AnySchemaObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

export interface ValidatorSpec {
  readonly schema: object;
  readonly options: Options;
  /** Annotation keywords of our own (`unit`, `maps_to`, …) that ajv's strict mode must know; their values are strings. */
  readonly keywords?: readonly string[];
}

export type ValidatorSpecs = Readonly<Record<string, ValidatorSpec>>;

function newAjv(spec: ValidatorSpec, source: boolean): Ajv2020 {
  const ajv = new Ajv2020({ ...spec.options, ...(source ? { code: { source: true } } : {}) });
  for (const keyword of spec.keywords ?? []) ajv.addKeyword({ keyword, schemaType: 'string' });
  return ajv;
}

/** Compiles every spec now; the result has one validator per spec, under the spec's name. */
export function compileValidators<K extends string>(specs: Readonly<Record<K, ValidatorSpec>>): Record<K, ValidateFunction> {
  const out = {} as Record<K, ValidateFunction>;
  for (const name of Object.keys(specs) as K[]) out[name] = newAjv(specs[name], false).compile(specs[name].schema as AnySchemaObject);
  return out;
}

/**
 * A CommonJS module exporting one ready-made validator per spec, under the spec's name: ajv's
 * standalone source of each, every one in a scope of its own (their generated names overlap).
 */
export function standaloneModule(specs: ValidatorSpecs): string {
  const parts = Object.entries(specs).map(([name, spec]) => {
    const ajv = newAjv(spec, true);
    const code = standaloneCode(ajv, ajv.compile(spec.schema as AnySchemaObject));
    return `exports[${JSON.stringify(name)}] = (function () {\nconst module = { exports: {} };\n${code}\nreturn module.exports;\n})();`;
  });
  return `"use strict";\n${parts.join('\n')}\n`;
}
