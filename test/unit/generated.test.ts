import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  configReferencePath,
  configurationContribution,
  envServiceSchemaPath,
  envServiceSchemaText,
  experimentSchemaText,
  replaceReference,
  serviceTypesPath,
  serviceTypesText,
  taskSchemaText,
  trajectorySchemaText,
} from '../../scripts/generated.js';

const stale = 'is stale: run npm run schemas and commit the result';

test('schemas/experiment.schema.json matches the zod source', () => {
  assert.equal(readFileSync('schemas/experiment.schema.json', 'utf8'), experimentSchemaText(), `schemas/experiment.schema.json ${stale}`);
});

test('schemas/trajectory.schema.json matches the zod source', () => {
  assert.equal(readFileSync('schemas/trajectory.schema.json', 'utf8'), trajectorySchemaText(), `schemas/trajectory.schema.json ${stale}`);
});

test('schemas/task.schema.json matches the zod source', () => {
  assert.equal(readFileSync('schemas/task.schema.json', 'utf8'), taskSchemaText(), `schemas/task.schema.json ${stale}`);
});

test("schemas/env-service.schema.json matches the environment service's zod bodies", () => {
  assert.equal(readFileSync(envServiceSchemaPath, 'utf8'), envServiceSchemaText(), `${envServiceSchemaPath} ${stale}`);
});

test("the Python client's service types match schemas/env-service.schema.json", () => {
  assert.equal(readFileSync(serviceTypesPath, 'utf8'), serviceTypesText(), `${serviceTypesPath} ${stale}`);
});

test('the settings block of package.json matches the settings schema', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { configuration: unknown } };
  assert.deepEqual(pkg.contributes.configuration, configurationContribution(), `package.json contributes.configuration ${stale}`);
});

test('the configuration and task references in docs/reference/configuration.md match the config and task schemas', () => {
  const page = readFileSync(configReferencePath, 'utf8');
  assert.equal(page, replaceReference(page), `${configReferencePath} ${stale}`);
});
