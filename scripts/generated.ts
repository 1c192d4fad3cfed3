/**
 * Everything generated from the zod sources, as pure functions of them: the JSON Schemas, the
 * settings block of package.json and the configuration reference (docs/reference/configuration.md). `npm run schemas`
 * writes them (scripts/generate.ts); test/unit/generated.test.ts fails when a written copy is stale.
 */
import { envServiceBodies } from '../server/src/protocol/envService.js';
import { trajectoryLineSchema } from '../server/src/protocol/runs.js';
import { oldNamesRegistry, type OldNames } from '../server/src/protocol/oldNames.js';
import { z } from 'zod';
import { buildExperimentJsonSchema, describeRange, formatValue, sectionSchemas, typesOf, type JsonSchemaNode } from '../server/src/config/index.js';
import { settingsSchema } from '../server/src/protocol/settings.js';
import { taskEntryJsonSchema } from '../server/src/tasks/schema.js';
import { pydanticModelsText, type SchemaDocument } from './pydanticModels.js';

export function experimentSchemaText(): string {
  return `${JSON.stringify(buildExperimentJsonSchema(), null, 2)}\n`;
}

export function taskSchemaText(): string {
  return `${JSON.stringify({ ...taskEntryJsonSchema(), $id: 'https://graph-planner.dev/schemas/task.schema.json' }, null, 2)}\n`;
}

/** An object's JSON Schema with each new key of `oldNames` spelt as it was before the rename. */
function underOldNames(schema: Record<string, unknown>, oldNames: OldNames): Record<string, unknown> {
  const oldOf = new Map(Object.entries(oldNames).map(([old, name]) => [name, old]));
  const properties = Object.entries((schema['properties'] ?? {}) as Record<string, unknown>).map(([key, value]) => [oldOf.get(key) ?? key, value]);
  const required = ((schema['required'] ?? []) as string[]).map((key) => oldOf.get(key) ?? key);
  return { ...schema, properties: Object.fromEntries(properties), required, deprecated: true };
}

/**
 * A schema wrapped in `withOldNames` is emitted as either spelling, the current one first, because
 * our readers open run folders written before the rename and a tool outside should accept them too.
 */
function acceptOldNames(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const renames = oldNamesRegistry.get(ctx.zodSchema as z.ZodType);
  if (renames === undefined || ctx.jsonSchema['type'] !== 'object') return;
  const current = { ...ctx.jsonSchema };
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  ctx.jsonSchema['anyOf'] = [current, underOldNames(current, renames.oldNames)];
}

/** One line of `trajectories/<episode>.jsonl` (start, step or end), for tools outside this repository. */
export function trajectorySchemaText(): string {
  const schema = z.toJSONSchema(trajectoryLineSchema, { io: 'output', unrepresentable: 'any', reused: 'ref', override: acceptOldNames });
  return `${JSON.stringify({ ...schema, $id: 'https://graph-planner.dev/schemas/trajectory.schema.json', title: 'Graph Planner trajectory line' }, null, 2)}\n`;
}

export const envServiceSchemaPath = 'schemas/env-service.schema.json';

/**
 * Every body of the environment service (server/src/protocol/envService.ts), one definition each:
 * a client's body as it may be sent (a field with a default may be left out), the service's as it
 * is sent (no field beyond those listed).
 */
export function envServiceSchema(): SchemaDocument {
  const $defs: Record<string, JsonSchemaNode> = {};
  for (const [name, body] of Object.entries(envServiceBodies)) {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(body.schema, { io: body.sender === 'client' ? 'input' : 'output', unrepresentable: 'any' });
    $defs[name] = { ...(schema as JsonSchemaNode), description: `${body.route} (written by the ${body.sender}).` };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://graph-planner.dev/schemas/env-service.schema.json',
    title: 'Graph Planner environment service bodies',
    description:
      "The HTTP bodies of the environment service a trainer's agent loop runs episodes through (docs/trainer-bridge.md), emitted from server/src/protocol/envService.ts.",
    $defs,
  } as SchemaDocument;
}

export function envServiceSchemaText(): string {
  return `${JSON.stringify(envServiceSchema(), null, 2)}\n`;
}

/** The Python client's models of the service's bodies, generated from the JSON Schema above. */
export const serviceTypesPath = 'python/graph_planner_verl/service_types.py';

export function serviceTypesText(): string {
  const summary = [
    "The environment service's bodies as pydantic models, one per definition of",
    `${envServiceSchemaPath} (declared in server/src/protocol/envService.ts).`,
    '',
    'The client builds every request from these and parses every reply into them (service_client.py),',
    'so a body missing a field, or holding one the service does not send, fails in the client with the',
    "field's name. Models are strict: a number sent as a string is an error, not a conversion.",
    '',
  ].join('\n');
  return pydanticModelsText(envServiceSchema(), envServiceSchemaPath, summary);
}

/** The `contributes.configuration` object of package.json. */
export function configurationContribution(): Record<string, unknown> {
  const schema = z.toJSONSchema(settingsSchema, { io: 'input' }) as { properties: Record<string, JsonSchemaNode & Record<string, unknown>> };
  const properties: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(schema.properties)) {
    const { description, ...rest } = node;
    properties[`graphPlanner.${key}`] = { ...rest, markdownDescription: description, scope: key === 'serverPath' ? 'machine' : 'resource' };
  }
  return { title: 'Graph Planner', properties };
}

/** The page that holds both generated tables; `npm run schemas` rewrites the text between their markers. */
export const configReferencePath = 'docs/reference/configuration.md';

const beginMarker = '<!-- BEGIN GENERATED CONFIG REFERENCE (npm run schemas) -->';
const endMarker = '<!-- END GENERATED CONFIG REFERENCE -->';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The configuration reference: one table per section, every field with type, default, range, unit. */
export function configReference(): string {
  const root = buildExperimentJsonSchema() as JsonSchemaNode;
  const out: string[] = [beginMarker, ''];
  for (const name of Object.keys(sectionSchemas)) {
    const section = root.properties?.[name];
    if (!section) continue;
    out.push(`### \`${name}\``, '', section.description ?? '', '', '| key | type | default | allowed | unit | meaning |', '|---|---|---|---|---|---|');
    const rows = (node: JsonSchemaNode, prefix: string) => {
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        if (child.properties && typesOf(child).includes('object')) {
          rows(child, `${prefix}${key}.`);
          continue;
        }
        const def = child.default === undefined ? '' : `\`${formatValue(child.default)}\``;
        const maps = child.maps_to ? ` (Verl: \`${child.maps_to}\`)` : '';
        out.push(
          `| \`${prefix}${key}\` | ${cell(typesOf(child).join(' | '))} | ${cell(def)} | ${cell(describeRange(child) ?? '')} | ${child.unit ?? ''} | ${cell((child.description ?? '') + maps)} |`,
        );
      }
    };
    rows(section, '');
    out.push('');
  }
  const overrides = root.properties?.['verl_overrides'];
  out.push('### `verl_overrides`', '', overrides?.description ?? '', '', endMarker);
  return out.join('\n');
}

const taskBegin = '<!-- BEGIN GENERATED TASK REFERENCE (npm run schemas) -->';
const taskEnd = '<!-- END GENERATED TASK REFERENCE -->';

/** The dataset task entry: top-level fields, then the `sandbox` and `issue` objects. */
export function taskReference(): string {
  const root = taskEntryJsonSchema() as JsonSchemaNode;
  const out: string[] = [taskBegin, ''];
  const table = (title: string, node: JsonSchemaNode | undefined, prefix: string) => {
    if (!node?.properties) return;
    const required = new Set(node.required ?? []);
    out.push(`### ${title}`, '', '| key | type | required | default | meaning |', '|---|---|---|---|---|');
    for (const [key, child] of Object.entries(node.properties)) {
      const types = typesOf(child);
      const def = child.default === undefined ? '' : `\`${formatValue(child.default)}\``;
      out.push(
        `| \`${prefix}${key}\` | ${cell((types.length ? types : ['any']).join(' | '))} | ${required.has(key) ? 'yes' : ''} | ${cell(def)} | ${cell(child.description ?? '')} |`,
      );
    }
    out.push('');
  };
  table('Task entry (one JSONL line)', root, '');
  table('`sandbox`', root.properties?.['sandbox'], 'sandbox.');
  table('`issue`', root.properties?.['issue'], 'issue.');
  out.push(taskEnd);
  return out.join('\n');
}

function replaceBlock(text: string, begin: string, end: string, content: string): string {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < 0) throw new Error(`${configReferencePath} has no ${begin} … ${end} block.`);
  return text.slice(0, start) + content + text.slice(stop + end.length);
}

export function replaceReference(page: string): string {
  const withConfig = replaceBlock(page, beginMarker, endMarker, configReference());
  return replaceBlock(withConfig, taskBegin, taskEnd, taskReference());
}

export function withConfiguration(pkg: Record<string, unknown>): Record<string, unknown> {
  const contributes = { ...(pkg['contributes'] as Record<string, unknown>), configuration: configurationContribution() };
  return { ...pkg, contributes };
}
