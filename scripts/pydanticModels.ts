/**
 * Writes pydantic models from a JSON Schema's `$defs`, for the Python side of a contract declared
 * with zod (the environment service's bodies, scripts/generated.ts). It reads the subset our zod
 * schemas emit: objects, strings, numbers, integers, booleans, arrays, enumerations and constants.
 * Anything else is refused rather than typed loosely, so a new kind of field is noticed here.
 * Lengths and ranges are not copied: the service checks them, and a client that checked them too
 * would refuse locally what the service answers with a 400 the agent loop already handles.
 */
import type { JsonSchemaNode } from '../server/src/config/index.js';

export interface SchemaDocument {
  readonly $id: string;
  readonly $defs: Readonly<Record<string, JsonSchemaNode>>;
}

/** Python's keywords: a field named like one (`return`) gets a trailing underscore and the JSON name as its alias. */
const pythonKeywords = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** A JSON value as a Python literal (JSON's string escapes are Python's too). */
function pythonLiteral(value: unknown): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  throw new Error(`no Python literal for ${JSON.stringify(value)}`);
}

function pascal(key: string): string {
  return key
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

class ModelWriter {
  /** Classes in the order Python must read them: a nested object's class before the class that uses it. */
  readonly classes: string[] = [];

  constructor(private readonly source: string) {}

  /** The Python type of `node`; an object's class is written first, named `name`. */
  typeOf(node: JsonSchemaNode, name: string, where: string): string {
    if (node.const !== undefined) return `Literal[${pythonLiteral(node.const)}]`;
    if (node.enum !== undefined) return `Literal[${node.enum.map(pythonLiteral).join(', ')}]`;
    switch (node.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'array':
        if (node.items === undefined) throw new Error(`${this.source}: ${where} is an array without items`);
        return `list[${this.typeOf(node.items, `${name}Item`, `${where}[]`)}]`;
      case 'object':
        this.writeClass(node, name, where);
        return name;
      default:
        throw new Error(`${this.source}: ${where} has a shape the pydantic generator does not read (${JSON.stringify(node).slice(0, 120)})`);
    }
  }

  writeClass(node: JsonSchemaNode, name: string, where: string): void {
    const required = new Set(node.required ?? []);
    const fields: string[] = [];
    let aliased = false;
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const type = this.typeOf(child, `${name}${pascal(key)}`, `${where}.${key}`);
      const field = pythonKeywords.has(key) ? `${key}_` : key;
      aliased ||= field !== key;
      const value = required.has(key) ? undefined : child.default === undefined ? 'None' : pythonLiteral(child.default);
      const annotation = required.has(key) || child.default !== undefined ? type : `Optional[${type}]`;
      if (field === key) fields.push(`    ${field}: ${annotation}${value === undefined ? '' : ` = ${value}`}`);
      else fields.push(`    ${field}: ${annotation} = Field(${value === undefined ? '' : `default=${value}, `}alias=${JSON.stringify(key)})`);
    }
    // The service's own bodies list every field they may hold (`additionalProperties: false`), so a
    // renamed optional field fails here instead of reading as absent.
    const extra = node.additionalProperties === false ? 'forbid' : 'ignore';
    const config = [`strict=True`, `extra="${extra}"`, ...(aliased ? ['validate_by_name=True', 'validate_by_alias=True'] : [])].join(', ');
    const lines = [`class ${name}(BaseModel):`];
    if (node.description !== undefined) lines.push(`    """${node.description.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"')}"""`, '');
    lines.push(`    model_config = ConfigDict(${config})`, '', ...fields);
    this.classes.push(lines.join('\n'));
  }
}

/**
 * The Python module: one model per definition of `document` (and one per object nested in it),
 * with a header naming its source and its generator. `summary` is the module's docstring.
 */
export function pydanticModelsText(document: SchemaDocument, sourcePath: string, summary: string): string {
  const writer = new ModelWriter(sourcePath);
  for (const [name, node] of Object.entries(document.$defs)) {
    if (node.type !== 'object') throw new Error(`${sourcePath}: $defs.${name} is not an object`);
    writer.writeClass(node, name, `$defs.${name}`);
  }
  const typing = ['Literal', 'Optional'].filter((name) => writer.classes.some((c) => c.includes(`${name}[`)));
  const header = [
    `# Generated by scripts/pydanticModels.ts from ${sourcePath} (npm run schemas); do not edit.`,
    '# test/unit/generated.test.ts fails when this file is stale.',
    `"""${summary}"""`,
    '',
    ...(typing.length === 0 ? [] : [`from typing import ${typing.join(', ')}`, '']),
    `from pydantic import BaseModel, ConfigDict${writer.classes.some((c) => c.includes('Field(')) ? ', Field' : ''}`,
  ];
  return `${[header.join('\n'), ...writer.classes].join('\n\n\n')}\n`;
}
