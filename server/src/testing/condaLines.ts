/**
 * SWE-bench's evaluation scripts start by activating the harness's conda environment
 * (`source /opt/miniconda3/bin/activate`, `conda activate testbed`), which exists only in its
 * images. On the local backend those lines fail and the script goes on with whatever Python is
 * first on the host's PATH, so the tests would be graded by other tools without a word. They are
 * therefore taken out of a command run on the local backend, where the task's own environment
 * (`sandbox.python_env`, built by `gp env build`) takes their place; a task that has none is not
 * graded (see `runTests.ts`).
 */

const activation = /^\s*(?:(?:source|\.)\s+\S*\/bin\/activate(?:\s+\S+)?|conda\s+activate\s+\S+)\s*(?:&&\s*)?/;

/** Whether a line is only conda activation (one or both steps, joined by `&&`). */
function isActivationLine(line: string): boolean {
  let rest = line;
  for (let i = 0; i < 3; i++) {
    const m = activation.exec(rest);
    if (m === null) break;
    rest = rest.slice(m[0].length);
  }
  return rest !== line && rest.trim() === '';
}

/** The command without its conda activation lines, and whether it had any. */
export function withoutCondaActivation(command: string): { command: string; removed: number } {
  const lines = command.split('\n');
  const kept = lines.filter((line) => !isActivationLine(line));
  return { command: kept.join('\n'), removed: lines.length - kept.length };
}
