/**
 * The observation as a model reads it. Unlike the original summary (docs/original-system.md#b3-what-the-planner-saw), it names
 * every node id the model may cite in `nodes` and `focus_ids`, shows read code with line numbers,
 * and says what went wrong and what to do when a step failed.
 */
import type { ActionResult, Observation, TestSummary } from '../protocol/observation.js';
import { candidateFate, candidateNumber, repairHeadline } from '../protocol/repairCandidates.js';

const bodyLimit = 2000;

function testLine(tests: TestSummary): string {
  const counts = Object.entries(tests.counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s.toLowerCase()}`)
    .join(', ');
  const failing = tests.failing.length > 0 ? `; failing: ${tests.failing.slice(0, 5).join(', ')}` : '';
  // A run that cannot be graded is named as such: its counts (all passed, for a rewritten runner) say nothing.
  if (tests.not_gradable !== undefined) return `tests not gradable: ${tests.not_gradable} (${counts || 'no tests found'})`;
  return `tests ${tests.passed ? 'passed' : 'did not pass'} (${counts || 'no tests found'})${failing}`;
}

function numbered(start: number, text: string): string[] {
  return text.split('\n').map((line, i) => `${String(start + i).padStart(5)}| ${line}`);
}

/** Lines describing the last action's result. */
export function renderResult(result: ActionResult): string[] {
  switch (result.kind) {
    case 'find':
      return [
        `Last action: find → ${result.nodes.length} node(s)`,
        ...result.nodes.map((n) => `  ${n.id}${n.test ? ' [test]' : ''}  ${n.path}:${n.span.start}-${n.span.end}${n.signature ? `  ${n.signature}` : ''}`),
        ...(result.unmatched.length > 0 ? [`  no match for: ${result.unmatched.join(', ')}`] : []),
      ];
    case 'expand':
      return [
        `Last action: expand → ${result.candidates.length} candidate(s) (commit them with memory to keep them)`,
        ...result.candidates.map(
          (c) => `  ${c.id}${c.test ? ' [test]' : ''}  ${c.path}:${c.span.start}-${c.span.end}  score ${c.score.toFixed(2)} (${c.reasons.join(', ')})`,
        ),
        ...(result.unmatched.length > 0 ? [`  no match for: ${result.unmatched.join(', ')}`] : []),
      ];
    case 'read':
      return [
        `Last action: read → ${result.snippets.length} snippet(s)`,
        ...result.snippets.flatMap((s) => [`--- ${s.node_id} (${s.path}:${s.start}-${s.end})`, ...numbered(s.start, s.text)]),
        ...(result.missing.length > 0 ? [`  unknown ids: ${result.missing.join(', ')} (use ids listed in observations)`] : []),
      ];
    case 'memory':
      return result.ok
        ? [`Last action: memory ${result.intent} ${result.target} → ok (${result.tag ?? ''}; +${result.added.nodes} nodes, −${result.removed.nodes} nodes)`]
        : [`Last action: memory ${result.intent} ${result.target} → refused: ${result.error?.code ?? ''}: ${result.error?.message ?? ''}`];
    case 'repair': {
      const head = result.error
        ? `Last action: repair → failed: ${result.error.code}: ${result.error.message}`
        : `Last action: repair (${result.apply ? 'apply' : 'candidates only'}) → ${repairHeadline(result)}${result.applied || !result.apply ? '' : '; the repository is unchanged'}`;
      const lines = [head];
      for (const c of result.candidates.slice(0, 8)) {
        const status = c.error
          ? `${candidateFate(c, result.kept) === 'not-tried' ? 'not tried' : 'refused'}: ${c.error.code}: ${c.error.message}`
          : c.tests
            ? testLine(c.tests)
            : 'not tried';
        lines.push(`  candidate ${candidateNumber(c.index)}${c.summary ? ` (${c.summary})` : ''}: ${status}`);
      }
      if (result.candidates.length > 8) lines.push(`  … ${result.candidates.length - 8} more candidate(s)`);
      const kept = result.kept === undefined ? undefined : result.candidates[result.kept];
      const shown = kept ?? result.candidates.find((c) => c.tests && !c.tests.passed);
      if (shown?.tests && !shown.tests.passed && shown.tests.tail) lines.push('  test output (end):', ...shown.tests.tail.split('\n').map((l) => `    ${l}`));
      if (!result.apply)
        for (const c of result.candidates.slice(0, 3))
          lines.push(`  diff of candidate ${candidateNumber(c.index)}:`, ...c.diff.split('\n').map((l) => `    ${l}`));
      return lines;
    }
    case 'submit':
      return [`Last action: submit → ${result.resolved ? 'resolved' : 'not resolved'}; ${testLine(result.tests)}`];
    case 'noop':
      return ['Last action: noop'];
    case 'protocol-error':
      return [`Your last reply could not be used: ${result.error.code}: ${result.error.detail}`, `To fix it: ${result.error.hint}`];
    case 'error':
      return [`Last action failed: ${result.error.code}: ${result.error.message}`];
  }
}

/** The full text of an observation (without the `text` field itself). */
export function renderObservation(obs: Omit<Observation, 'text'>): string {
  const left = obs.max_steps - obs.step;
  const body =
    obs.issue.body.length > bodyLimit ? `${obs.issue.body.slice(0, bodyLimit)}\n[… ${obs.issue.body.length - bodyLimit} more characters]` : obs.issue.body;
  const lines = [
    `Task ${obs.task_id} · step ${obs.step}/${obs.max_steps} · ${left} step(s) left${obs.done ? ' · episode over' : ''}`,
    `Issue: ${obs.issue.title}`,
  ];
  if (body.trim() !== '') lines.push(body);
  if (obs.failure_frame)
    lines.push(
      `Failure frame: ${obs.failure_frame.path}${obs.failure_frame.line ? `:${obs.failure_frame.line}` : ''}${obs.failure_frame.function ? ` in ${obs.failure_frame.function}` : ''}`,
    );
  if (obs.hints && obs.hints.length > 0) lines.push(`The issue points at: ${obs.hints.join(', ')}`);
  lines.push('');
  if (obs.last) lines.push(...renderResult(obs.last), '');
  const { memory } = obs;
  lines.push(
    `Working memory: ${memory.size.nodes}/${memory.limits.nodes} nodes, ${memory.size.edges}/${memory.limits.edges} edges, notes ${memory.size.note_tokens}/${memory.limits.note_tokens} tokens`,
  );
  for (const n of memory.nodes.slice(-40)) lines.push(`  ${n.id}  ${n.path}:${n.span.start}-${n.span.end}`);
  if (memory.nodes.length > 40) lines.push(`  … and ${memory.nodes.length - 40} earlier node(s)`);
  for (const note of memory.notes.slice(-10)) lines.push(`  note ${note.id}: ${note.text}`);
  return lines.join('\n');
}
