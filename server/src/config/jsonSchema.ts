/**
 * The experiment config as standard JSON Schema, derived from the zod source once per process.
 * `npm run schemas` writes the same object to schemas/experiment.schema.json (a test checks the
 * file is not stale), so other tools such as the Red Hat YAML extension see what we validate.
 */
import { z } from 'zod';
import { experimentConfigSchema } from './schema.js';

/** The subset of JSON Schema our features read. */
export interface JsonSchemaNode {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
  readonly additionalProperties?: boolean | JsonSchemaNode;
  readonly items?: JsonSchemaNode;
  readonly required?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly format?: string;
  readonly anyOf?: readonly JsonSchemaNode[];
  readonly oneOf?: readonly JsonSchemaNode[];
  readonly unit?: string;
  readonly maps_to?: string;
  readonly path_kind?: 'tasks-file' | 'folder';
  readonly title?: string;
}

export const experimentSchemaId = 'https://graph-planner.dev/schemas/experiment.schema.json';

export function buildExperimentJsonSchema(): Record<string, unknown> {
  const raw = z.toJSONSchema(experimentConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...raw, $id: experimentSchemaId };
}

export const experimentJsonSchema: JsonSchemaNode = buildExperimentJsonSchema() as JsonSchemaNode;

/** The schema node that describes the value at `path`, following properties and items. */
export function schemaAt(path: readonly (string | number)[], root: JsonSchemaNode = experimentJsonSchema): JsonSchemaNode | undefined {
  let node: JsonSchemaNode | undefined = root;
  for (const seg of path) {
    if (!node) return undefined;
    node = childSchema(node, seg);
  }
  return node;
}

function childSchema(node: JsonSchemaNode, seg: string | number): JsonSchemaNode | undefined {
  const options = node.anyOf ?? node.oneOf;
  if (options) {
    for (const o of options) {
      const c = childSchema(o, seg);
      if (c) return c;
    }
    return undefined;
  }
  if (typeof seg === 'number') return node.items;
  const prop = node.properties?.[seg];
  if (prop) return prop;
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

/** Types of a node as a list, with anyOf members flattened. */
export function typesOf(node: JsonSchemaNode): string[] {
  const options = node.anyOf ?? node.oneOf;
  if (options) return options.flatMap(typesOf);
  if (node.type === undefined) return [];
  return typeof node.type === 'string' ? [node.type] : [...node.type];
}

/** A short human description of the allowed range of a number or string node. */
export function describeRange(node: JsonSchemaNode): string | undefined {
  const parts: string[] = [];
  if (node.enum) return `one of ${node.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const lowBound = node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : node.minimum !== undefined ? `≥ ${node.minimum}` : undefined;
  const maxSafe = Number.MAX_SAFE_INTEGER;
  const highBound =
    node.exclusiveMaximum !== undefined ? `< ${node.exclusiveMaximum}` : node.maximum !== undefined && node.maximum < maxSafe ? `≤ ${node.maximum}` : undefined;
  if (lowBound) parts.push(lowBound);
  if (highBound) parts.push(highBound);
  if (node.minLength) parts.push(`at least ${node.minLength} character${node.minLength === 1 ? '' : 's'}`);
  if (node.pattern) parts.push(`matching /${node.pattern}/`);
  return parts.length ? parts.join(', ') : undefined;
}
