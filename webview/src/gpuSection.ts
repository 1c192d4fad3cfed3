/**
 * The GPU layout: a num_nodes × num_gpus grid with the GPUs the planner and CGM use marked (shared
 * ones highlighted), their tensor-parallel sizes and replicas, and Ray's budgets against the need.
 */
import type { GpuLayout, ModelPlacement } from '../../server/src/protocol/overview.js';
import { el, plural } from './dom.js';

/** Every node has the same layout; drawing more than a few adds nothing but scrolling. */
const maxNodesDrawn = 4;
const maxGpusDrawn = 64;

export function gpuSection(gpus: GpuLayout): HTMLElement {
  return el(
    'section',
    { attrs: { 'aria-labelledby': 'gpu-heading' } },
    el('h2', { attrs: { id: 'gpu-heading' } }, 'GPU layout'),
    el('p', { class: 'hint' }, `${plural(gpus.numNodes, 'node')} × ${plural(gpus.gpusPerNode, 'GPU')} per node; device maps apply on every node.`),
    grid(gpus),
    el(
      'ul',
      { class: 'facts' },
      el('li', {}, placementText('Planner', gpus.planner, `, ${plural(gpus.replicas, 'replica')}`)),
      el('li', {}, placementText('CGM', gpus.cgm, '')),
      gpus.sharedGpus.length > 0 && el('li', { class: 'shared-note' }, `Planner and CGM share GPU ${gpus.sharedGpus.join(', ')}.`),
      gpus.sharedByTrainer && el('li', { class: 'shared-note' }, 'Planner and CGM do not fit side by side, so the trainer places them on the same GPUs.'),
      gpus.missingGpus.length > 0 &&
        el(
          'li',
          { class: 'short' },
          `The device maps name GPU ${gpus.missingGpus.join(', ')}, which a node with ${plural(gpus.gpusPerNode, 'GPU')} does not have.`,
        ),
    ),
    el('h3', {}, 'Ray budgets'),
    el(
      'ul',
      { class: 'facts' },
      budget('ray_num_gpus', gpus.rayGpus, 'trainer GPUs or planner replicas'),
      budget('ray_num_cpus', gpus.rayCpus, '4 per rollout worker'),
    ),
  );
}

function placementText(name: string, p: ModelPlacement, extra: string): string {
  if (p.backend === 'openai') return `${name}: served by an OpenAI-compatible endpoint; no GPUs of this run.`;
  if (p.backend === 'embedded') return `${name}: the embedded CPU model, started for the run; no GPUs of this run.`;
  const where = p.deviceMap === null ? 'placed by the trainer' : `GPU ${p.deviceMap.join(', ')}`;
  return `${name}: ${where}; tensor parallel ${p.tensorParallel}${extra}.`;
}

function budget(key: string, b: { have: number; need: number }, why: string): HTMLElement {
  const ok = b.have >= b.need;
  return el('li', { class: ok ? 'ok' : 'short' }, el('code', {}, key), ` ${b.have}, needs ${b.need} (${why}) `, el('strong', {}, ok ? 'enough' : 'too low'));
}

function grid(gpus: GpuLayout): HTMLElement {
  const planner = new Set(gpus.planner.backend === 'local' ? (gpus.planner.deviceMap ?? []) : []);
  const cgm = new Set(gpus.cgm.backend === 'local' ? (gpus.cgm.deviceMap ?? []) : []);
  const nodes = Math.min(gpus.numNodes, maxNodesDrawn);
  const perNode = Math.min(gpus.gpusPerNode, maxGpusDrawn);
  const rows: HTMLElement[] = [];
  for (let node = 0; node < nodes; node++) {
    const cells: HTMLElement[] = [];
    for (let i = 0; i < perNode; i++) cells.push(gpuCell(i, planner.has(i), cgm.has(i), gpus.sharedGpus.includes(i), gpus.sharedByTrainer));
    if (gpus.gpusPerNode > perNode) cells.push(el('span', { class: 'more' }, `… ${gpus.gpusPerNode - perNode} more`));
    rows.push(el('div', { class: 'node' }, el('span', { class: 'node-label' }, `Node ${node}`), ...cells));
  }
  if (gpus.numNodes > nodes) rows.push(el('p', { class: 'hint' }, `… and ${plural(gpus.numNodes - nodes, 'more node')} with the same layout.`));
  if (gpus.gpusPerNode === 0) rows.push(el('p', { class: 'short' }, 'This run has no GPUs (num_gpus is 0).'));
  return el('div', { class: 'gpu-grid', attrs: { role: 'list', 'aria-label': 'GPUs by node' } }, ...rows);
}

/** A GPU's cell; `shared` (orange) only where preflight says the models share it (`sharedGpus`). */
function gpuCell(index: number, planner: boolean, cgm: boolean, shared: boolean, sharedByTrainer: boolean): HTMLElement {
  const roles = [planner && 'Planner', cgm && 'CGM'].filter((r): r is string => typeof r === 'string');
  const classes = ['gpu', planner ? 'planner' : '', cgm ? 'cgm' : '', shared ? 'shared' : '', sharedByTrainer && roles.length === 0 ? 'trainer' : ''];
  return el(
    'div',
    { class: classes.filter((c) => c !== '').join(' '), attrs: { role: 'listitem' }, title: shared ? 'Shared by the planner and CGM' : '' },
    el('span', { class: 'gpu-index' }, `GPU ${index}`),
    el('span', { class: 'gpu-roles' }, roles.length > 0 ? roles.join(' + ') : 'trainer'),
  );
}
