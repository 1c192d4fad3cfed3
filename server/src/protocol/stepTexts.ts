/**
 * What a step showed beyond its one-line summary, clipped for the compact cells of the comparison
 * and the group view (`server/src/episodes/stepTexts.ts` makes them): the thought behind the action,
 * the action's result (a tool result) and the observation the model read next. Null where the step
 * has none. The views' filters show or hide each.
 */
import { z } from 'zod';

export const stepTextsSchema = z.object({
  thought: z.string().nullable(),
  result: z.string().nullable(),
  observation: z.string().nullable(),
});
export type StepTexts = z.infer<typeof stepTextsSchema>;
