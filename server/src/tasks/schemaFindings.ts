/**
 * Turns ajv's errors for one task entry into findings a person can act on: one finding per
 * problem, naming the field in dotted form, saying what is expected (with the field's description
 * from the schema), and offering a fix where one is obvious. Unknown keys are warnings with a
 * "did you mean"; everything else is an error. For unions (anyOf), only the branch whose type fits
 * the value is reported, so a wrong mount mode says "mode must be ro or rw", not four messages.
 */
import type { ErrorObject } from 'ajv';
import { finding, type Finding, type Fix, type KeyPath } from '../protocol/index.js';
import { closest as closestMatch } from '../util/closest.js';
import { taskJsonSchema } from './taskValidator.js';
import { suggestedTaskId, taskIdProblem } from './schema.js';
import { isRecord } from '../util/isRecord.js';
import { formatKeyPath, getAt } from '../util/keyPath.js';

type SchemaNode = Record<string, unknown>;

function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The schema node at an ajv schema path such as `#/properties/sandbox/required` minus `drop` trailing segments. */
function schemaAt(schemaPath: string, drop = 0): SchemaNode | undefined {
  const segments = pointerSegments(schemaPath.replace(/^#/, ''));
  let node: unknown = taskJsonSchema;
  for (const segment of segments.slice(0, segments.length - drop)) {
    if (Array.isArray(node)) node = (node as unknown[])[Number(segment)];
    else if (isRecord(node)) node = node[segment];
    else return undefined;
  }
  return isRecord(node) ? node : undefined;
}

/** The key path of an ajv instance path, with array indices as numbers. */
function keyPathOf(value: unknown, pointer: string): KeyPath {
  const path: KeyPath = [];
  let node = value;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(node)) {
      path.push(Number(segment));
      node = (node as unknown[])[Number(segment)];
    } else {
      path.push(segment);
      node = isRecord(node) ? node[segment] : undefined;
    }
  }
  return path;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeFits(schemaType: unknown, value: unknown): boolean {
  if (typeof schemaType !== 'string') return true;
  const actual = jsonType(value);
  return schemaType === actual || (schemaType === 'number' && actual === 'integer');
}

function describeValue(value: unknown): string {
  const type = jsonType(value);
  if (type === 'string') {
    const text = value as string;
    return `the string ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`;
  }
  if (type === 'array' || type === 'object') return `${type === 'array' ? 'a list' : 'an object'}`;
  if (type === 'null') return 'null';
  return `${type === 'boolean' ? 'the boolean' : 'the number'} ${String(value)}`;
}

const typeWords: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function described(node: SchemaNode | undefined): string {
  const description = node?.['description'];
  return typeof description === 'string' ? ` ${description}` : '';
}

/** Keeps, for each union, only the errors of the branch that fits the value (see the header). */
function resolveUnions(errors: readonly ErrorObject[], value: unknown): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const union of unions) {
    if (dropped.has(union)) continue;
    const branches = schemaAt(union.schemaPath, 1)?.[union.keyword];
    if (!Array.isArray(branches)) continue;
    const data = getAt(value, keyPathOf(value, union.instancePath));
    const inBranch = (i: number) => errors.filter((e) => e.schemaPath.startsWith(`${union.schemaPath}/${i}/`) && !dropped.has(e));
    const fitting = branches.map((b, i) => ({ i, fits: isRecord(b) && typeFits(b['type'], data), count: inBranch(i).length })).filter((b) => b.fits);
    const best = fitting.sort((a, b) => a.count - b.count)[0];
    for (const e of errors) {
      if (e.schemaPath.startsWith(`${union.schemaPath}/`) && !(best !== undefined && e.schemaPath.startsWith(`${union.schemaPath}/${best.i}/`))) dropped.add(e);
    }
    if (best !== undefined) dropped.add(union);
  }
  return errors.filter((e) => !dropped.has(e));
}

const knownObjects: readonly { path: KeyPath; schemaPath: string }[] = [
  { path: [], schemaPath: '#' },
  { path: ['sandbox'], schemaPath: '#/properties/sandbox' },
  { path: ['issue'], schemaPath: '#/properties/issue' },
];

function propertiesOf(node: SchemaNode | undefined): string[] {
  const properties = node?.['properties'];
  return isRecord(properties) ? Object.keys(properties) : [];
}

function unknownKeyFinding(error: ErrorObject, value: unknown): Finding {
  const parent = keyPathOf(value, error.instancePath);
  const key = String(error.params['additionalProperty']);
  const path = [...parent, key];
  const known = propertiesOf(schemaAt(error.schemaPath, 1));
  const parentValue = getAt(value, parent);
  const suggestion = closestMatch(key, known);
  const fixes: Fix[] = [];
  let hint = '';
  if (suggestion !== undefined) {
    hint = ` Did you mean \`${suggestion}\`?`;
    const taken = isRecord(parentValue) && suggestion in parentValue;
    if (!taken) fixes.push({ title: `Rename \`${key}\` to \`${suggestion}\``, preferred: true, edits: [{ op: 'rename', path, newKey: suggestion }] });
  } else {
    // A key written one level too high or too low (`workdir` next to `sandbox`) is a common slip.
    const home = knownObjects.find((o) => formatKeyPath(o.path) !== formatKeyPath(parent) && propertiesOf(schemaAt(o.schemaPath)).includes(key));
    const homeValue = home === undefined ? undefined : getAt(value, home.path);
    if (home !== undefined && (home.path.length === 0 || isRecord(homeValue))) {
      const target = [...home.path, key];
      hint = ` It belongs in \`${home.path.length === 0 ? 'the top level' : formatKeyPath(home.path)}\`: did you mean \`${formatKeyPath(target)}\`?`;
      if (!(isRecord(homeValue) && key in homeValue)) {
        fixes.push({
          title: `Move \`${key}\` to \`${formatKeyPath(target)}\``,
          preferred: true,
          edits: [
            { op: 'remove', path },
            { op: 'set', path: target, value: getAt(value, path) },
          ],
        });
      }
    }
  }
  fixes.push({ title: `Remove \`${key}\``, edits: [{ op: 'remove', path }] });
  return finding({
    code: 'task/unknown-key',
    severity: 'warning',
    message: `Unknown key \`${formatKeyPath(path)}\`; it is ignored.${hint}`,
    path,
    target: 'key',
    fixes,
  });
}

function missingFinding(error: ErrorObject, value: unknown): Finding {
  const parent = keyPathOf(value, error.instancePath);
  const missing = String(error.params['missingProperty']);
  const node = schemaAt(error.schemaPath, 1);
  const properties = node?.['properties'];
  const fieldSchema = isRecord(properties) && isRecord(properties[missing]) ? properties[missing] : undefined;
  const fixes: Fix[] = [];
  const parentValue = getAt(value, parent);
  let hint = '';
  if (missing === 'task_id' && isRecord(parentValue)) {
    // Raw SWE-bench and R2E rows name their id differently; the converters use these in this order.
    const source = ['instance_id', 'id'].find((k) => typeof parentValue[k] === 'string');
    if (source !== undefined) {
      hint = ` The row has \`${source}\`: rename it to \`task_id\`.`;
      fixes.push({ title: `Rename \`${source}\` to \`task_id\``, preferred: true, edits: [{ op: 'rename', path: [...parent, source], newKey: 'task_id' }] });
    }
  }
  return finding({
    code: 'task/schema',
    severity: 'error',
    message: `Missing required field \`${formatKeyPath([...parent, missing])}\`.${described(fieldSchema)}${hint}`,
    path: [...parent, missing],
    target: 'key',
    fixes,
  });
}

function valueMessage(error: ErrorObject, data: unknown, node: SchemaNode | undefined): string {
  const p = error.params;
  switch (error.keyword) {
    case 'type':
      return `must be ${typeWords[String(p['type'])] ?? String(p['type'])}, not ${describeValue(data)}`;
    case 'enum': {
      const allowed = (Array.isArray(p['allowedValues']) ? (p['allowedValues'] as unknown[]) : []).map(String);
      const suggestion = typeof data === 'string' ? closestMatch(data, allowed) : undefined;
      return `must be one of ${allowed.join(', ')}${suggestion === undefined ? '' : ` (did you mean \`${suggestion}\`?)`}, not ${describeValue(data)}`;
    }
    case 'minimum':
    case 'exclusiveMinimum': {
      const limit = Number(p['limit']);
      const words = error.keyword === 'minimum' ? `at least ${limit}` : `greater than ${limit}`;
      // Penalties are magnitudes that get subtracted; a negative one would reward failure.
      if (limit === 0 && typeof data === 'number' && data < 0) {
        return `must be ${words}: penalties are magnitudes that are subtracted, so a negative value would reward failure; got ${data}`;
      }
      return `must be ${words}, not ${describeValue(data)}`;
    }
    case 'minLength':
      return 'must not be empty';
    case 'pattern':
      return `has the wrong form: ${describeValue(data)} does not match ${String(p['pattern'])}`;
    case 'anyOf':
    case 'oneOf': {
      const branches = node?.[error.keyword];
      const types = Array.isArray(branches)
        ? branches.map((b) => (isRecord(b) ? typeWords[String(b['type'])] : undefined)).filter((t): t is string => t !== undefined)
        : [];
      return `must be ${[...new Set(types)].join(' or ') || 'a different kind of value'}, not ${describeValue(data)}`;
    }
    default:
      return error.message ?? 'is not valid';
  }
}

function fixesFor(error: ErrorObject, path: KeyPath, data: unknown): Fix[] {
  if ((error.keyword === 'minimum' || error.keyword === 'exclusiveMinimum') && Number(error.params['limit']) === 0 && typeof data === 'number' && data < 0) {
    return [{ title: `Use the magnitude ${-data}`, preferred: true, edits: [{ op: 'set', path, value: -data }] }];
  }
  if (error.keyword === 'enum' && typeof data === 'string' && Array.isArray(error.params['allowedValues'])) {
    const suggestion = closestMatch(data, (error.params['allowedValues'] as unknown[]).map(String));
    if (suggestion !== undefined) return [{ title: `Change to \`${suggestion}\``, preferred: true, edits: [{ op: 'set', path, value: suggestion }] }];
  }
  return [];
}

/** A task id the schema's pattern refused, said in words (tasks/schema.ts), with a usable id to switch to. */
function taskIdFinding(id: string, path: KeyPath): Finding {
  const suggestion = suggestedTaskId(id);
  return finding({
    code: 'task/schema',
    severity: 'error',
    message: taskIdProblem(id) ?? 'A task id is one printable path segment.',
    path,
    fixes: suggestion === undefined ? [] : [{ title: `Change the id to \`${suggestion}\``, preferred: true, edits: [{ op: 'set', path, value: suggestion }] }],
  });
}

export function schemaFindings(errors: readonly ErrorObject[], value: unknown): Finding[] {
  const out: Finding[] = [];
  for (const error of resolveUnions(errors, value)) {
    if (error.keyword === 'additionalProperties') out.push(unknownKeyFinding(error, value));
    else if (error.keyword === 'required') out.push(missingFinding(error, value));
    else {
      const path = keyPathOf(value, error.instancePath);
      const data = getAt(value, path);
      const node = schemaAt(error.schemaPath, 1);
      if (error.keyword === 'pattern' && path.length === 1 && path[0] === 'task_id' && typeof data === 'string') {
        out.push(taskIdFinding(data, path));
        continue;
      }
      const message = valueMessage(error, data, node);
      out.push(
        finding({
          code: 'task/schema',
          severity: 'error',
          message: `${path.length === 0 ? 'The line' : `\`${formatKeyPath(path)}\``} ${message}.${described(node)}`,
          path,
          fixes: fixesFor(error, path, data),
        }),
      );
    }
  }
  return out;
}
