/**
 * What a step showed beyond its summary, clipped for the compact cells of the comparison and the
 * group view: the thought behind the action (or the reply's `<think>` block), the action's result
 * in one or two lines (a tool result), and the start of the observation the model read next.
 * The views' filters show or hide each, so long traces stay readable.
 */
import type { StepTexts } from '../protocol/stepTexts.js';
import type { StepView } from './episodeModel.js';
import { repairHeadline } from '../protocol/repairCandidates.js';

/** Characters each text keeps; the cell says where it was cut. */
const clipAt = 400;

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= clipAt ? trimmed : `${trimmed.slice(0, clipAt).trimEnd()}…`;
}

export function stepTexts(view: StepView): StepTexts {
  const record = view.record;
  const thought = record.action?.thought ?? /<think>([\s\S]*?)(?:<\/think>|$)/.exec(record.response ?? '')?.[1];
  const observation = record.observation.text;
  const result = resultText(view);
  return {
    thought: thought === undefined || thought.trim() === '' ? null : clip(thought),
    result: result === null ? null : clip(result),
    observation: observation.trim() === '' ? null : clip(observation),
  };
}

/** The action's result as a person scans it: what was found, read, changed or decided. */
function resultText(view: StepView): string | null {
  const last = view.record.observation.last;
  if (last === undefined) return null;
  switch (last.kind) {
    case 'find':
      return `${last.nodes.length} node${last.nodes.length === 1 ? '' : 's'}: ${last.nodes
        .slice(0, 6)
        .map((n) => n.id)
        .join(', ')}${last.unmatched.length > 0 ? ` · not found: ${last.unmatched.join(', ')}` : ''}`;
    case 'expand':
      return `${last.candidates.length} candidate${last.candidates.length === 1 ? '' : 's'}: ${last.candidates
        .slice(0, 6)
        .map((n) => n.id)
        .join(', ')}`;
    case 'read':
      return [...last.snippets.map((s) => `${s.path}:${s.start}-${s.end}`), ...(last.missing.length > 0 ? [`missing: ${last.missing.join(', ')}`] : [])].join(
        ', ',
      );
    case 'memory':
      return `${last.intent} ${last.target}: ${last.ok ? 'done' : `refused${last.error === undefined ? '' : ` (${last.error.code})`}`}`;
    case 'repair':
      return repairHeadline(last);
    case 'submit':
      return `${last.resolved ? 'resolved' : 'not resolved'}: ${last.tests.counts.PASSED} passed, ${last.tests.counts.FAILED + last.tests.counts.ERROR} failed${last.tests.failing.length > 0 ? ` (${last.tests.failing.slice(0, 3).join(', ')})` : ''}`;
    case 'noop':
      return 'nothing done';
    case 'protocol-error':
      return `${last.error.code}: ${last.error.detail}`;
    case 'error':
      return `${last.error.code}: ${last.error.message}`;
  }
}
