/**
 * Time limits read from files (task rows, Harbor's `task.toml`, experiment configs) end up in a
 * Node timer, which holds at most 2^31 - 1 ms (24.8 days); a longer one fires after 1 ms with
 * a `TimeoutOverflowWarning`, so a task that asked for "forever" would time out at once and every
 * run of it would be recorded as not gradable. A limit beyond what the runtime can hold is
 * therefore a validation error at its line, never clamped.
 */
import { z } from 'zod';

/** The longest time limit, in seconds, that a timer can hold (2^31 - 1 ms, rounded down). */
export const maxTimerSeconds = Math.floor((2 ** 31 - 1) / 1000);

/** A time limit in seconds: positive, finite and at most `maxTimerSeconds`. */
export function timerSeconds(): z.ZodNumber {
  return z
    .number()
    .gt(0)
    .max(maxTimerSeconds, {
      message: `must be at most ${maxTimerSeconds} seconds (24.8 days), the longest time limit the runtime can hold; a longer one would fire at once`,
    });
}
