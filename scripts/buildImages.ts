/**
 * Builds the offline images from the sources, without bundling first: `npx tsx
 * scripts/buildImages.ts [base|sample|samples|sample-<name>]... [--force] [--json]`. The
 * integration test setup runs it; it takes the same arguments as `gp images build`.
 */
import { imagesBuild } from '../server/src/cli/imageBuildCommand.js';

imagesBuild(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
