/**
 * The Debian mirror the base image is bootstrapped from, read from the machine's own apt sources:
 * a machine that can install packages can build the image, with no registry and no mirror name
 * written into the repository. Both formats apt reads are understood: deb822 (`.sources`, the
 * default since bookworm) and one-line (`sources.list`).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ImageBuildError } from './imageError.js';

/** One source entry, whichever format it came from. */
export interface AptSource {
  types: string[];
  uris: string[];
  suites: string[];
  components: string[];
  /** A keyring file (or an inline key in deb822) named by `Signed-By` / `[signed-by=…]`. */
  signedBy?: string;
  enabled: boolean;
}

export interface AptMirror {
  uri: string;
  /** A keyring file to verify the mirror with, when the source names one that exists. */
  keyring?: string;
  /** The file the mirror was read from, or `option` when it was given. */
  from: string;
}

/** The files read, in order: deb822 first, since bookworm's installer writes only that one. */
export const defaultAptSourceFiles = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'] as const;

const words = (value: string | undefined): string[] => (value ?? '').split(/\s+/).filter((w) => w.length > 0);

/** Parses deb822 stanzas: `Field: value` lines, indented continuation lines, blank lines between stanzas. */
export function parseDeb822Sources(text: string): AptSource[] {
  const stanzas: Map<string, string>[] = [];
  let fields = new Map<string, string>();
  let last: string | undefined;
  const close = () => {
    if (fields.size > 0) stanzas.push(fields);
    fields = new Map();
    last = undefined;
  };
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim().length === 0) close();
    else if (raw.startsWith('#')) continue;
    else if (/^[ \t]/.test(raw) && last !== undefined) fields.set(last, `${fields.get(last) ?? ''}\n${raw.trim()}`);
    else {
      const colon = raw.indexOf(':');
      if (colon <= 0) continue;
      last = raw.slice(0, colon).trim().toLowerCase();
      fields.set(last, raw.slice(colon + 1).trim());
    }
  }
  close();
  return stanzas.map((f) => {
    const source: AptSource = {
      types: words(f.get('types')),
      uris: words(f.get('uris')),
      suites: words(f.get('suites')),
      components: words(f.get('components')),
      enabled: !/^(no|false|0)$/i.test(f.get('enabled') ?? 'yes'),
    };
    const signedBy = f.get('signed-by');
    if (signedBy !== undefined && signedBy.length > 0) source.signedBy = signedBy;
    return source;
  });
}

/** Parses one-line entries: `deb [opt=value …] uri suite component…`; `#` starts a comment. */
export function parseOneLineSources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const match = /^(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)(.*)$/.exec(line);
    if (match === null) continue;
    const [, type = '', options = '', uri = '', suite = '', components = ''] = match;
    const source: AptSource = { types: [type], uris: [uri], suites: [suite], components: words(components), enabled: true };
    const signedBy = /(?:^|\s)signed-by=(\S+)/.exec(options)?.[1];
    if (signedBy !== undefined) source.signedBy = signedBy;
    sources.push(source);
  }
  return sources;
}

const usableUri = /^(https?|ftp|file):/;
const sideSuite = /[-/](security|updates|backports|proposed-updates)$/;

/**
 * The mirror to bootstrap `suite` from: the first enabled binary source that serves the suite
 * itself; failing that, the first one that serves any main suite (not only security or updates,
 * whose archives lay out differently), since a Debian mirror serves every release.
 */
export function pickMirror(sources: readonly AptSource[], suite: string): { uri: string; signedBy?: string } | undefined {
  const binary = sources.filter((s) => s.enabled && s.types.includes('deb') && s.uris.some((u) => usableUri.test(u)));
  const chosen = binary.find((s) => s.suites.includes(suite)) ?? binary.find((s) => s.suites.some((name) => !sideSuite.test(name)));
  if (chosen === undefined) return undefined;
  const uri = chosen.uris.find((u) => usableUri.test(u));
  if (uri === undefined) return undefined;
  return chosen.signedBy === undefined ? { uri } : { uri, signedBy: chosen.signedBy };
}

/**
 * Reads the mirror for `suite` from the first of `files` that names one. A `Signed-By` keyring is
 * passed on only when it is a file on this machine (deb822 may hold the key inline instead).
 */
export async function readAptMirror(suite: string, files: readonly string[] = defaultAptSourceFiles): Promise<AptMirror> {
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const sources = file.endsWith('.sources') ? parseDeb822Sources(text) : parseOneLineSources(text);
    const picked = pickMirror(sources, suite);
    if (picked === undefined) continue;
    const keyring = picked.signedBy?.startsWith('/') && existsSync(picked.signedBy) ? picked.signedBy : undefined;
    return keyring === undefined ? { uri: picked.uri, from: file } : { uri: picked.uri, keyring, from: file };
  }
  throw new ImageBuildError(
    `No Debian mirror found in ${files.join(' or ')}: add one to the apt sources, or pass --mirror URL (e.g. http://deb.debian.org/debian).`,
    'no-mirror',
  );
}
