/**
 * What a Dockerfile says about the image it builds, read with `dockerfile-ast` (continuation lines,
 * parser directives, JSON and shell forms): the images its stages start `FROM`, the final stage's
 * working directory and the files it copies in; and the Dockerfile with those base images replaced.
 * Nothing is run or resolved against a registry.
 */
import { posix } from 'node:path';
import { DockerfileParser, ModifiableInstruction, type Instruction } from 'dockerfile-ast';

/** A span of the text: 0-based lines and characters, as dockerfile-ast gives them. */
interface Range {
  readonly start: { readonly line: number; readonly character: number };
  readonly end: { readonly line: number; readonly character: number };
}

/** A `FROM` that names an image rather than an earlier stage. */
export interface DockerfileBase {
  /** 1-based. */
  readonly line: number;
  readonly image: string;
  readonly range: Range;
}

/** A `COPY` or `ADD` of the final stage, with the working directory it runs in. */
export interface DockerfileCopy {
  readonly line: number;
  readonly keyword: 'COPY' | 'ADD';
  readonly sources: readonly string[];
  readonly dest: string;
  /** The working directory at that point, or undefined when a `WORKDIR` before it uses a variable. */
  readonly workdir: string | undefined;
  /** Flag names, e.g. `from`, `chown`. */
  readonly flags: readonly string[];
}

export interface DockerfileFacts {
  readonly bases: readonly DockerfileBase[];
  /** The final stage's working directory: absolute, or undefined when it sets none or names it through a variable. */
  readonly workdir: string | undefined;
  /** Whether some `WORKDIR` of the final stage uses a variable, so `workdir` could not be known. */
  readonly workdirUnknown: boolean;
  readonly copies: readonly DockerfileCopy[];
  /** `RUN` instructions of the final stage: they may change files, which only a build reproduces. */
  readonly runs: number;
}

function argumentsOf(instruction: Instruction): string[] {
  const raw = instruction.getArgumentsContent()?.trim() ?? '';
  // The JSON form: dockerfile-ast splits on spaces even inside the strings, so the array is read whole.
  if (raw.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) return parsed;
    } catch {
      // Not JSON after all: the shell form's words below.
    }
  }
  return instruction.getArguments().map((a) => a.getValue());
}

function flagNames(instruction: Instruction): string[] {
  return instruction instanceof ModifiableInstruction ? instruction.getFlags().map((f) => f.getName()) : [];
}

export function dockerfileFacts(text: string): DockerfileFacts {
  const dockerfile = DockerfileParser.parse(text);
  const stages = new Set<string>();
  const bases: DockerfileBase[] = [];
  for (const from of dockerfile.getFROMs()) {
    const image = from.getImage();
    const range = from.getImageRange();
    if (image !== null && range !== null && !stages.has(image.toLowerCase())) bases.push({ line: range.start.line + 1, image, range });
    const stage = from.getBuildStage();
    if (stage !== null) stages.add(stage.toLowerCase());
  }
  const lastFrom = dockerfile.getFROMs().at(-1);
  const finalStart = lastFrom === undefined ? 0 : lastFrom.getRange().start.line;
  let workdir: string | undefined;
  let workdirUnknown = false;
  const copies: DockerfileCopy[] = [];
  let runs = 0;
  for (const instruction of dockerfile.getInstructions()) {
    const line = instruction.getRange().start.line;
    if (line < finalStart) continue;
    const keyword = instruction.getKeyword().toUpperCase();
    const args = argumentsOf(instruction);
    if (keyword === 'WORKDIR') {
      const path = args.join(' ');
      if (path.includes('$') || workdirUnknown) {
        workdirUnknown = true;
        workdir = undefined;
      } else workdir = posix.resolve(workdir ?? '/', path);
    } else if (keyword === 'COPY' || keyword === 'ADD') {
      const dest = args.at(-1);
      if (dest !== undefined && args.length >= 2)
        copies.push({
          line: line + 1,
          keyword,
          sources: args.slice(0, -1),
          dest,
          workdir: workdirUnknown ? undefined : (workdir ?? '/'),
          flags: flagNames(instruction),
        });
    } else if (keyword === 'RUN') runs += 1;
  }
  return { bases, workdir, workdirUnknown, copies, runs };
}

/** `text` with every `FROM` that names an image (not an earlier stage) starting from `image` instead. */
export function replaceBaseImages(text: string, image: string): string {
  const bases = dockerfileFacts(text).bases;
  const lines = text.split('\n');
  // From the last to the first, so earlier ranges stay valid while later ones change.
  for (const base of [...bases].reverse()) {
    const { start, end } = base.range;
    const line = lines[start.line];
    if (line === undefined || start.line !== end.line) continue;
    lines[start.line] = `${line.slice(0, start.character)}${image}${line.slice(end.character)}`;
  }
  return lines.join('\n');
}
