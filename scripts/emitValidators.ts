// Prints, as JSON, ajv's standalone source for each module named on the command line that holds
// validators (`validatorSpecs`, server/src/util/ajvValidators.ts), keyed by the module's absolute
// path. scripts/precompiledValidators.mjs runs it at build time.
import { resolve } from 'node:path';
import { standaloneModule, type ValidatorSpecs } from '../server/src/util/ajvValidators.js';

async function main(): Promise<void> {
  const out: Record<string, string> = {};
  for (const file of process.argv.slice(2)) {
    const path = resolve(file);
    const mod = (await import(path)) as { validatorSpecs?: ValidatorSpecs };
    if (mod.validatorSpecs === undefined) throw new Error(`${file} exports no validatorSpecs`);
    out[path] = standaloneModule(mod.validatorSpecs);
  }
  process.stdout.write(JSON.stringify(out));
}

void main();
