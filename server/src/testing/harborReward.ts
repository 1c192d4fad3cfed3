/**
 * The reward a Harbor task's verifier writes (docs/field-formats.md, "Harbor task folders"): its
 * `tests/test.sh` leaves `/logs/verifier/reward.json` or `/logs/verifier/reward.txt`, and Harbor
 * reads the JSON file when it exists, else the text file. The text file holds one finite number;
 * the JSON file a finite number or an object of names to finite numbers. Which number is the
 * episode's reward: the only one, or the one named `reward`; several without that name cannot be
 * graded, rather than guessed. Anything else (empty, not a number, infinite, a string) is a reason
 * the run cannot be graded, never a reward of zero: a reward that is silently wrong is worse than
 * none. Pure: the files' text in, a reward or a reason out.
 */

export type HarborReward =
  | { readonly ok: true; readonly reward: number; readonly rewards: Readonly<Record<string, number>>; readonly from: 'reward.json' | 'reward.txt' }
  | { readonly ok: false; readonly reason: string };

/** A number as Python's `float()` reads the verifier's text, less its underscores and `inf`/`nan` (which Harbor refuses anyway). */
const numberText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function harborReward(files: { readonly json?: string | undefined; readonly text?: string | undefined }): HarborReward {
  if (files.json !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(files.json);
    } catch (error) {
      return { ok: false, reason: `/logs/verifier/reward.json is not JSON (${error instanceof Error ? error.message : String(error)})` };
    }
    if (finite(value)) return { ok: true, reward: value, rewards: { reward: value }, from: 'reward.json' };
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, reason: '/logs/verifier/reward.json holds neither a number nor an object of named numbers' };
    const entries = Object.entries(value as Record<string, unknown>);
    const bad = entries.find(([, v]) => !finite(v));
    if (bad !== undefined) return { ok: false, reason: `/logs/verifier/reward.json: ${JSON.stringify(bad[0]).slice(0, 80)} is not a finite number` };
    const rewards = Object.fromEntries(entries) as Record<string, number>;
    const named = rewards['reward'];
    if (named !== undefined) return { ok: true, reward: named, rewards, from: 'reward.json' };
    const only = entries.length === 1 ? entries[0] : undefined;
    if (only !== undefined) return { ok: true, reward: only[1] as number, rewards, from: 'reward.json' };
    return {
      ok: false,
      reason:
        entries.length === 0
          ? '/logs/verifier/reward.json names no reward'
          : `/logs/verifier/reward.json names ${entries.length} rewards and none is called "reward", so which is the episode's is not known`,
    };
  }
  if (files.text !== undefined) {
    const text = files.text.trim();
    if (text === '') return { ok: false, reason: '/logs/verifier/reward.txt is empty' };
    if (!numberText.test(text)) return { ok: false, reason: `/logs/verifier/reward.txt does not hold one number (${JSON.stringify(text.slice(0, 40))})` };
    const reward = Number(text);
    if (!Number.isFinite(reward)) return { ok: false, reason: '/logs/verifier/reward.txt holds a number too large to be finite' };
    return { ok: true, reward, rewards: { reward }, from: 'reward.txt' };
  }
  return { ok: false, reason: 'the verifier wrote neither /logs/verifier/reward.json nor /logs/verifier/reward.txt' };
}
