/**
 * The two validators of the experiment config, both from the one emitted JSON Schema: one that
 * reports every error with its schema (verbose, for the findings), and one that fills in the
 * defaults as it validates. The bundles hold them precompiled (util/ajvValidators.ts).
 */
import { compileValidators, type ValidatorSpec } from '../util/ajvValidators.js';
import { experimentJsonSchema } from './jsonSchema.js';

function spec(useDefaults: boolean): ValidatorSpec {
  return {
    schema: experimentJsonSchema,
    options: { allErrors: !useDefaults, verbose: !useDefaults, strict: true, allowUnionTypes: true, validateFormats: false, useDefaults },
    // Our annotation keywords; ajv must know them in strict mode.
    keywords: ['unit', 'maps_to', 'path_kind'],
  };
}

export const validatorSpecs = { validateExperiment: spec(false), fillExperimentDefaults: spec(true) };

export const { validateExperiment, fillExperimentDefaults } = compileValidators(validatorSpecs);
