/**
 * The metrics page's sample-table messages (page → extension). The extension validates every
 * message against this schema and drops anything else (`zod/mini`, as in `metricsWebview.ts`).
 * Episodes are named by id and looked up in the table the extension last sent, so the page never
 * hands the extension a path.
 */
import { discriminatedUnion, int, literal, maxLength, minimum, nullable, object, string, type output } from 'zod/mini';

export const stepSamplesWebviewMessageSchema = discriminatedUnion('type', [
  /** The sample table of a step (`null`: the latest). */
  object({ type: literal('stepSamples'), step: nullable(int().check(minimum(0))) }),
  /** Open an episode of the table last sent in the trajectory viewer. */
  object({ type: literal('openSample'), episodeId: string().check(maxLength(1000)) }),
  /** The GRPO group view of a step, at a task's group when one is named. */
  object({ type: literal('openGroup'), step: int().check(minimum(0)), taskId: nullable(string().check(maxLength(1000))) }),
]);
export type StepSamplesWebviewMessage = output<typeof stepSamplesWebviewMessageSchema>;
