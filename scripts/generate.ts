/** `npm run schemas`: writes every generated file (see scripts/generated.ts). */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cliReferencePath, cliReferenceText } from './cliReference.js';
import {
  configReferencePath,
  envServiceSchemaPath,
  envServiceSchemaText,
  experimentSchemaText,
  replaceReference,
  serviceTypesPath,
  serviceTypesText,
  taskSchemaText,
  trajectorySchemaText,
  withConfiguration,
} from './generated.js';

mkdirSync('schemas', { recursive: true });
writeFileSync('schemas/experiment.schema.json', experimentSchemaText());
writeFileSync('schemas/task.schema.json', taskSchemaText());
writeFileSync('schemas/trajectory.schema.json', trajectorySchemaText());
writeFileSync(envServiceSchemaPath, envServiceSchemaText());
writeFileSync(serviceTypesPath, serviceTypesText());
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, unknown>;
writeFileSync('package.json', `${JSON.stringify(withConfiguration(pkg), null, 2)}\n`);
mkdirSync('docs/reference', { recursive: true });
writeFileSync(configReferencePath, replaceReference(readFileSync(configReferencePath, 'utf8')));
writeFileSync(cliReferencePath, cliReferenceText());
console.log(
  `Wrote schemas/experiment.schema.json, schemas/task.schema.json, schemas/trajectory.schema.json, ${envServiceSchemaPath}, ${serviceTypesPath}, package.json contributes.configuration, ${configReferencePath} and ${cliReferencePath}.`,
);
