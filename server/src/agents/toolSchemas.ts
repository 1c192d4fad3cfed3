/**
 * The planner's actions as OpenAI tool definitions, for endpoints that do function calling. The
 * parameter schemas are emitted from the zod action schemas (`server/src/protocol/actions.ts`), so
 * the tools a server is sent and the actions `parseToolCall` accepts are defined once; this file
 * only adds the words a model reads.
 */
import { z } from 'zod';
import { actionSchemas, type ActionType } from '../protocol/actions.js';
import type { ChatTool } from '../protocol/modelApi.js';
import { isRecord } from '../util/isRecord.js';

const descriptions: Record<ActionType, { tool: string; params: Record<string, string>; required?: string[] }> = {
  explore: {
    tool: 'Explore the code graph: find nodes matching anchors, expand neighbours of anchors or nodes, or read the source of nodes.',
    params: {
      thought: 'Your reasoning for this step.',
      op: 'find: look the anchors up; expand: propose neighbours (needs anchors or nodes); read: show the source of nodes (needs nodes).',
      anchors:
        'Where to start: objects {kind, text} or {id}; kind is file (a path), class, function, method, symbol (any definition) or text (free-text search). Needed for find.',
      nodes: 'Node ids exactly as the observations show them, e.g. "func:app/calc.py#add". Needed for read.',
      hop: 'Expand: how many hops from each anchor (0-2).',
      limit: 'Expand: most candidates per anchor; read: most nodes read.',
    },
  },
  memory: {
    tool: 'Keep or drop working memory: commit the latest exploration results or a note of the latest observation, or delete what a record added.',
    params: {
      thought: 'Your reasoning for this step.',
      target: 'explore: the latest expand/find results; observation: a note of the latest observation.',
      scope: 'turn or session.',
      intent: 'commit or delete.',
      selector: 'For delete: the record to remove ("latest" or a tag shown in the observation).',
    },
  },
  repair: {
    tool: 'Ask the patch model for a fix of the focus nodes following your plan, then (with apply) try the candidates and keep the first whose tests pass.',
    params: {
      thought: 'Your reasoning for this step.',
      plan: 'The sub-plan: numbered steps saying what to change and where. Required.',
      focus_ids: 'Ids of the nodes to change, exactly as the observations show them.',
      apply: 'true: apply and test the candidates; false: only show their diffs.',
      patches: 'Optional ready-made candidates (line edits or a unified diff); when given, the patch model is not asked.',
    },
    required: ['plan'],
  },
  submit: { tool: 'Run the task tests, grade them and end the episode.', params: { thought: 'Your reasoning for this step.' } },
  noop: { tool: 'Do nothing this step (it still counts as a step).', params: { thought: 'Your reasoning for this step.' } },
};

/** The JSON Schema of one action's parameters: the action's input schema without its `type`. */
export function actionParametersSchema(type: ActionType): Record<string, unknown> {
  const emitted = z.toJSONSchema(actionSchemas[type], { io: 'input' }) as Record<string, unknown>;
  const properties = isRecord(emitted['properties']) ? { ...emitted['properties'] } : {};
  delete properties['type'];
  const words = descriptions[type];
  for (const [name, description] of Object.entries(words.params)) {
    const property = properties[name];
    if (isRecord(property)) properties[name] = { ...property, description };
  }
  return { type: 'object', properties, required: words.required ?? [], additionalProperties: false };
}

/** The five planner tools, in the shape chat-completions requests carry them. */
export function plannerTools(): ChatTool[] {
  return (Object.keys(actionSchemas) as ActionType[]).map((type) => ({
    type: 'function' as const,
    function: { name: type, description: descriptions[type].tool, parameters: actionParametersSchema(type) },
  }));
}
