/**
 * Rewards have one sign convention (ARCHITECTURE.md §4.4): penalties are non-negative magnitudes that the
 * environment subtracts. The original's YAMLs used negative values, which made failing pay more than
 * succeeding (docs/original-system.md#b4-rewards-and-termination), so a negative penalty is an error with a fix that flips its sign.
 */
import { finding, type KeyPath } from '../../protocol/index.js';
import { setFix, type Rule } from './rule.js';
import { formatKeyPath } from '../../util/keyPath.js';

const PENALTIES = ['failure_penalty', 'step_penalty', 'timeout_penalty'] as const;

export const negativePenaltyRule: Rule = {
  name: 'negative-penalty',
  check(config) {
    return PENALTIES.flatMap((key) => {
      const value = config.env[key];
      if (value >= 0) return [];
      const path: KeyPath = ['env', key];
      const flipped = Math.abs(value);
      return [
        finding({
          code: 'preflight/negative-penalty',
          severity: 'error',
          message: `${formatKeyPath(path)} is ${value}, but penalties are subtracted, so a negative value rewards failure. Write the magnitude: ${flipped}.`,
          path,
          fixes: [setFix(`Flip the sign: set ${formatKeyPath(path)} to ${flipped}`, [[path, flipped]], true)],
        }),
      ];
    });
  },
};
