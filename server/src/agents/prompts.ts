/**
 * What the models are told. The planner's system prompt rewords the original's (docs/original-system.md#a3-planner-prompt) and
 * says what it left out: which parameters each op needs, that node ids come from observations,
 * and that repair needs a subplan. Its examples are valid replies (a test parses each). The CGM
 * prompts keep the original's wording (docs/original-system.md#d3-cgm-formats) so a CGM checkpoint trained on it sees the same
 * text; the user message gains numbered focus windows so the model's line numbers are right.
 */
import type { PatchRequest } from '../env/index.js';
import { actionSchema, type Action } from '../protocol/actions.js';
import { renderAction } from './replyFormat.js';

/** Who the planner is and what it does. */
export const plannerRole = `You are the Graph Planner decision model. You fix a bug in a code repository: explore its code graph, keep what matters in working memory, ask the patch model for a repair, then submit.`;

/** The actions, their parameters and where node ids come from; the same whichever reply format. */
export const plannerActions = `Actions and their parameters:
- explore: op (find | expand | read; default find), anchors (JSON list of {"kind": KIND, "text": TEXT} or {"id": NODE_ID}; KIND is file (a path), class, function, method, symbol (any definition) or text (free-text search)), nodes (JSON list of node ids), hop (integer 0-2; default 1), limit (integer 1-100; default 20).
  find needs anchors. expand needs anchors or nodes. read needs nodes (no anchors).
- memory: target (explore | observation), scope (turn | session), intent (commit | delete), selector (for delete: "latest" or a tag an observation showed). Committing explore keeps the latest find or expand results in the working subgraph; committing observation keeps a note of the latest observation.
- repair: subplan (required: numbered steps saying what to change and where, in CDATA), focus_ids (JSON list of the node ids to change), apply (true | false; default true). The patch model edits only the lines of the focus nodes. With apply true the candidates are tested and the first whose tests pass is kept; with apply false you only see their diffs.
- submit: runs the tests, grades them and ends the episode. Only thought.
- noop: does nothing; the step still counts. Only thought.

Node ids: nodes and focus_ids take node ids exactly as the observations show them, e.g. file:app/calc.py, func:app/calc.py#add, class:app/models.py#User, method:app/models.py#User.save. Do not invent ids: find or expand first and use the ids you are shown.`;

/** The planner's system prompt without its reply format and examples (`prompts.system` replaces it). */
export const plannerInstructions = `${plannerRole}\n\n${plannerActions}`;

/** How a reply is written in the reply text format (replyFormat.ts). */
export const textReplyFormat = `Every reply is exactly one block and nothing else:

<function=ACTION>
  <param name="thought">why you take this step</param>
  <param name="KEY">VALUE</param>
</function>

ACTION is one of explore, memory, repair, submit, noop. Write lists and objects as JSON. Put multi-line text, or text containing < or >, inside <![CDATA[ ... ]]>. Give each parameter at most once. Every action may carry a thought. Text outside the block is an error.`;

/** How a reply is written when the server constrains it to JSON (structured output, jsonReply.ts). */
export const jsonReplyFormat = `Every reply is exactly one JSON object and nothing else:

{"function": "ACTION", "arguments": {"thought": "why you take this step", "KEY": VALUE}}

ACTION is one of explore, memory, repair, submit, noop; the arguments are its parameters, below. Lists and objects are JSON values; the subplan is a string. Give each parameter at most once.`;

/** One valid reply per action, in the order a typical episode takes them; a test parses each rendering. */
export const exampleActions: readonly Action[] = [
  {
    type: 'explore',
    thought: 'The failing test calls add; look it up.',
    op: 'find',
    anchors: [
      { kind: 'function', text: 'add' },
      { kind: 'file', text: 'app/calc.py' },
    ],
  },
  { type: 'explore', thought: 'Read the function before changing it.', op: 'read', nodes: ['func:app/calc.py#add'] },
  { type: 'memory', thought: 'Keep the candidates of the last expand.', target: 'explore', intent: 'commit' },
  {
    type: 'repair',
    thought: 'add subtracts instead of adding.',
    plan: '1) In add, return a + b instead of a - b.\n2) Leave the signature unchanged.',
    focus_ids: ['func:app/calc.py#add'],
    apply: true,
  },
  { type: 'submit', thought: 'The failing tests pass now.' },
  { type: 'noop', thought: 'Nothing to do this step.' },
].map((example) => actionSchema.parse(example));

/**
 * One example turn pair: an observation of a small made-up task (not one of the samples, so its ids
 * cannot be copied into a real episode) and a valid first reply to it.
 */
export const exampleObservation = `Task example-greet · step 0/8 · 8 step(s) left
Issue: greet() drops the exclamation mark
greet("Ada") should return "Hello, Ada!". Fix app/greet.py so that tests/test_greet.py passes.
Failure frame: app/greet.py:2 in greet
The issue points at: file:app/greet.py, func:app/greet.py#greet, file:tests/test_greet.py
Working memory: 0/200 nodes, 0/1000 edges, notes 0/2000 tokens`;

export const exampleReply: Action = actionSchema.parse({
  type: 'explore',
  thought: 'The issue points at greet; read it first.',
  op: 'read',
  nodes: ['func:app/greet.py#greet'],
});

/** The example turns, the reply written as the model should write it. */
export function exampleTurns(render: (action: Action) => string): Array<{ role: 'user'; content: string } | { role: 'assistant'; content: string }> {
  return [
    { role: 'user', content: exampleObservation },
    { role: 'assistant', content: render(exampleReply) },
  ];
}

/** The examples section of the system prompt: each example action written as the model should write it. */
export function examplesSection(render: (action: Action) => string): string {
  return `Examples, one per action:\n\n${exampleActions.map(render).join('\n\n')}`;
}

/** The system message: instructions, reply format and examples, each a paragraph of its own. */
export function assemblePlannerPrompt(parts: { readonly instructions: string; readonly replyFormat: string; readonly examples: string }): string {
  return [parts.instructions, parts.replyFormat, parts.examples]
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n');
}

/** Today's planner system prompt for the reply text format: the default of every `prompts` file. */
export const plannerSystemPrompt = assemblePlannerPrompt({
  instructions: plannerInstructions,
  replyFormat: textReplyFormat,
  examples: examplesSection(renderAction),
});

/** The original CGM instruction (docs/original-system.md#d3-cgm-formats), used as the system prompt and as the user-side instruction. */
export const cgmSystemPrompt =
  'You are CodeFuse-CGM, a graph-aware assistant that generates precise code patches. Use the issue description, planner plan, graph context and snippets to derive the necessary edits. Reply with a JSON object containing a top-level "patch" field. The patch must include an "edits" array listing objects with "path", "start", "end" and "new_text" fields. Ensure new_text entries end with a newline.';

function numbered(start: number, text: string): string {
  const lines = text.split('\n');
  const width = String(start + lines.length - 1).length;
  return lines.map((line, i) => `${String(start + i).padStart(width)} | ${line}`).join('\n');
}

function instruction(request: PatchRequest): string {
  const rules = [
    cgmSystemPrompt,
    'Lines are 1-based and inclusive: new_text replaces lines start..end of path. The numbers before "|" below are line numbers, not part of the code.',
    'Edit only inside the focus windows.',
    `Use at most ${request.constraints.max_edits} edit(s)${request.constraints.one_file ? ', all in one file' : ''}.`,
  ];
  return rules.join('\n');
}

/** The user message of a CGM request: [Issue], [Instruction], [Plan], [Focus], [Files], [Notes]. */
export function cgmUserPrompt(request: PatchRequest): string {
  const sections = [
    `[Issue]\n${request.issue.title}${request.issue.body.trim() ? `\n${request.issue.body}` : ''}`,
    `[Instruction]\n${instruction(request)}`,
    `[Plan]\n${request.plan.trim() || '(no plan given)'}`,
    `[Focus]\n${request.focus.map((f) => `${f.node.id} (${f.node.kind}) ${f.node.path}:${f.start}-${f.end}\n${numbered(f.start, f.text)}`).join('\n\n') || '(no focus nodes)'}`,
  ];
  const files = Object.entries(request.files);
  if (files.length > 0) sections.push(`[Files]\n${files.map(([path, text]) => `--- ${path}\n${numbered(1, text.replace(/\n$/, ''))}`).join('\n\n')}`);
  if (request.notes.length > 0) sections.push(`[Notes]\n${request.notes.map((n) => `- ${n}`).join('\n')}`);
  return sections.join('\n\n');
}
