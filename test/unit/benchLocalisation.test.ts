/**
 * The pure parts of the localisation benchmark (`bench/localisation*.ts`): which release stands for
 * a SWE-bench version, what a gold patch edits, where its hunks sit in a release's file, the
 * definitions around the changed lines, the baselines' words, and recall at k.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCodeGraphFromFiles } from '../../server/src/graph/index.js';
import { bm25Tokens, PlainBm25 } from '../../bench/localisationBaselines.js';
import { issueOf, repoWanted } from '../../bench/localisationData.js';
import { hunkOf, parseGoldPatch } from '../../bench/localisationDiff.js';
import { goldOn, qualifiedKey } from '../../bench/localisationGold.js';
import { fileLineOf, locateHunk, placeHunk } from '../../bench/localisationLocate.js';
import { chooseRelease, type IndexFile, type ReleasesMap } from '../../bench/localisationRelease.js';
import { goldRanks, meanRecall, recallAt } from '../../bench/localisationScore.js';
import { repositoryPath } from '../../bench/localisationUnpack.js';

function file(filename: string, packagetype = 'sdist'): IndexFile {
  return { filename, url: `https://files.example/${filename}`, packagetype, size: 1, digests: { sha256: '0'.repeat(64) } };
}

function releases(versions: Record<string, string[]>): ReleasesMap {
  return Object.fromEntries(Object.entries(versions).map(([v, names]) => [v, names.map((n) => file(n, n.endsWith('.whl') ? 'bdist_wheel' : 'sdist'))]));
}

describe('release choice', () => {
  test('takes X.Y itself when it is published', () => {
    const outcome = chooseRelease(releases({ '3.0': ['Django-3.0.tar.gz'], '3.0.1': ['Django-3.0.1.tar.gz'], '3.0rc1': ['Django-3.0rc1.tar.gz'] }), '3.0');
    assert.deepEqual(outcome.ok && [outcome.choice.version, outcome.choice.file.filename, outcome.choice.note], ['3.0', 'Django-3.0.tar.gz', undefined]);
  });

  test('takes X.Y.0 before later patch releases and ignores pre-releases of the series', () => {
    const outcome = chooseRelease(
      releases({ '3.5.1': ['m-3.5.1.tar.gz'], '3.5.0': ['m-3.5.0.tar.gz'], '3.5.0rc1': ['m-3.5.0rc1.tar.gz'], '3.6.0': ['m-3.6.0.tar.gz'] }),
      '3.5',
    );
    assert.equal(outcome.ok && outcome.choice.version, '3.5.0');
  });

  test('orders patch numbers as numbers, so 1.1 never picks 1.10', () => {
    const outcome = chooseRelease(releases({ '1.10': ['s-1.10.tar.gz'], '1.1.1': ['s-1.1.1.tar.gz'], '1.1': ['s-1.1.tar.gz'] }), '1.1');
    assert.equal(outcome.ok && outcome.choice.version, '1.1');
  });

  test('skips a release without an sdist and says which it took instead', () => {
    const outcome = chooseRelease(releases({ '0.21.0': ['x-0.21.0-cp37.whl'], '0.21.1': ['x-0.21.1.tar.gz'], '0.21.2': ['x-0.21.2.tar.gz'] }), '0.21');
    assert.equal(outcome.ok && outcome.choice.version, '0.21.1');
    assert.match((outcome.ok && outcome.choice.note) || '', /took 0\.21\.1/);
  });

  test('takes the latest pre-release of a series published only as pre-releases, and says so', () => {
    const outcome = chooseRelease(
      releases({ '2.0a1': ['p-2.0a1.tar.gz'], '2.0rc1': ['p-2.0rc1.tar.gz'], '2.0b2': ['p-2.0b2.tar.gz'], '1.9': ['p-1.9.tar.gz'] }),
      '2.0',
    );
    assert.equal(outcome.ok && outcome.choice.version, '2.0rc1');
    assert.match((outcome.ok && outcome.choice.note) || '', /only pre-releases/);
  });

  test('takes the next final release for a series that was never released', () => {
    const outcome = chooseRelease(
      releases({ '6.2.5': ['p-6.2.5.tar.gz'], '7.0.0rc1': ['p-7.0.0rc1.tar.gz'], '7.0.0': ['p-7.0.0.tar.gz'], '7.1.0': ['p-7.1.0.tar.gz'] }),
      '6.3',
    );
    assert.equal(outcome.ok && outcome.choice.version, '7.0.0');
    assert.match((outcome.ok && outcome.choice.note) || '', /never released/);
  });

  test('prefers the gzipped tar when a release has a zip sdist too', () => {
    const outcome = chooseRelease(releases({ '0.14.0': ['r-0.14.0.zip', 'r-0.14.0.tar.gz'] }), '0.14');
    assert.equal(outcome.ok && outcome.choice.file.filename, 'r-0.14.0.tar.gz');
  });

  test('fails with a reason when nothing of the series or later has an sdist', () => {
    const outcome = chooseRelease(releases({ '1.0': ['a-1.0.tar.gz'] }), '2.0');
    assert.equal(outcome.ok, false);
  });
});

const patch = `diff --git a/pkg/shapes.py b/pkg/shapes.py
--- a/pkg/shapes.py
+++ b/pkg/shapes.py
@@ -3,6 +3,7 @@ class Square:
     def __init__(self, side):
         self.side = side
 
+    # A comment added between methods.
     def area(self):
-        return self.side * 2
+        return self.side ** 2
 
diff --git a/pkg/new.py b/pkg/new.py
new file mode 100644
--- /dev/null
+++ b/pkg/new.py
@@ -0,0 +1 @@
+VALUE = 1
`;

describe('gold patch', () => {
  test('lists the files on the source side and the files the patch creates apart', () => {
    const gold = parseGoldPatch(patch);
    assert.deepEqual(
      gold.files.map((f) => f.path),
      ['pkg/shapes.py'],
    );
    assert.deepEqual(gold.created, ['pkg/new.py']);
  });

  test('splits a hunk into its two images and the places the fix changes in each', () => {
    const [hunk] = parseGoldPatch(patch).files[0]?.hunks ?? [];
    assert.equal(hunk?.pre.start, 3);
    assert.deepEqual(hunk?.pre.lines, [
      '    def __init__(self, side):',
      '        self.side = side',
      '',
      '    def area(self):',
      '        return self.side * 2',
      '',
    ]);
    assert.deepEqual(hunk?.pre.targets, [
      { kind: 'between', after: 2, before: 3, indent: 4 },
      { kind: 'line', index: 4 },
    ]);
    assert.equal(hunk?.post.start, 3);
    assert.deepEqual(hunk?.post.targets, [
      { kind: 'between', after: 2, before: 4, indent: 4 },
      { kind: 'line', index: 5 },
    ]);
  });

  test('marks an insertion at the start of a hunk as following no line, and a removal as a point on the fixed side', () => {
    assert.deepEqual(hunkOf(1, 1, ['+import os', ' import sys']).pre.targets, [{ kind: 'between', after: -1, before: 0, indent: 0 }]);
    assert.deepEqual(hunkOf(1, 1, [' def f():', '-    x = 1', '     return 2']).post.targets, [{ kind: 'between', after: 0, before: 1, indent: 4 }]);
  });
});

describe('hunk location', () => {
  const release = ['import os', '', 'def f():', '    x = 1', '    return x', '', 'def g():', '    x = 1', '    return x', ''];

  test('finds the exact block nearest the hunk’s own line when it occurs twice', () => {
    assert.deepEqual(locateHunk(release, ['    x = 1', '    return x'], 8), { offset: 7, how: 'exact', matched: 2 });
    assert.deepEqual(locateHunk(release, ['    x = 1', '    return x'], 3), { offset: 3, how: 'exact', matched: 2 });
  });

  test('falls back to the longest run of trimmed lines when the release changed around the hunk', () => {
    const preImage = ['def g():', '  x = 1', '  return x', 'def h():'];
    assert.deepEqual(locateHunk(release, preImage, 1), { offset: 6, how: 'tolerant', matched: 3 });
  });

  test('does not place a hunk on a run shorter than three lines or on blank lines alone', () => {
    assert.equal(locateHunk(release, ['def g():', '    x = 1', '    y = 2', '    z = 3'], 7), undefined);
    assert.equal(locateHunk(['', '', '', ''], ['', '', '', 'gone'], 1), undefined);
  });

  test('places a hunk by its fixed side when the release already holds the fix', () => {
    const hunk = hunkOf(3, 3, [' def f():', '-    x = 2', '+    x = 1', '     return x']);
    const placed = placeHunk(release, hunk);
    assert.equal(placed?.how, 'post-image exact');
    assert.equal(placed?.location.offset, 2);
    assert.deepEqual(placed?.targets, [{ kind: 'line', index: 1 }]);
  });

  test('prefers the unfixed side when the release still has it, and falls back to a tolerant match of it', () => {
    const hunk = hunkOf(7, 7, [' def g():', '-    x = 1', '+    x = 3', '     return x']);
    assert.equal(placeHunk(release, hunk)?.how, 'pre-image exact');
    const neither = hunkOf(6, 6, ['-    y = 0', '+    y = 1', ' def g():', '     x = 1', '     return x']);
    assert.deepEqual(placeHunk(release, neither), {
      how: 'pre-image tolerant',
      location: { offset: 5, how: 'tolerant', matched: 3 },
      targets: [{ kind: 'line', index: 0 }],
    });
  });

  test('maps pre-image lines to 1-based file lines inside the file', () => {
    const location = { offset: 6, how: 'tolerant' as const, matched: 3 };
    assert.equal(fileLineOf(location, 1, release.length), 8);
    assert.equal(fileLineOf(location, 9, release.length), release.length);
  });
});

describe('gold definitions', () => {
  const shapes = [
    'class Square:',
    '    """A square."""',
    '    def __init__(self, side):',
    '        self.side = side',
    '',
    '    def area(self):',
    '        return self.side * 2',
    '',
    '',
    'def helper():',
    '    return 1',
    '',
  ].join('\n');

  test('names the method around a removed line and the class for code added between methods', async () => {
    const graph = await buildCodeGraphFromFiles([{ path: 'pkg/shapes.py', text: shapes }]);
    const gold = goldOn(parseGoldPatch(patch), graph);
    assert.deepEqual([...gold.definitions].sort(), ['pkg/shapes.py#Square', 'pkg/shapes.py#Square.area']);
    assert.deepEqual(gold.files, ['pkg/shapes.py']);
    assert.equal(gold.functionsSkip, undefined);
  });

  test('skips an instance for functions when its only edit is at module level', async () => {
    const graph = await buildCodeGraphFromFiles([{ path: 'pkg/shapes.py', text: shapes }]);
    const moduleEdit = '--- a/pkg/shapes.py\n+++ b/pkg/shapes.py\n@@ -9,3 +9,4 @@\n \n+CONSTANT = 2\n def helper():\n     return 1\n';
    const gold = goldOn(parseGoldPatch(moduleEdit), graph);
    assert.deepEqual(gold.definitions, []);
    assert.equal(gold.functionsSkip, 'the patch edits module-level code only');
  });

  test('skips an instance whose file the release lacks', async () => {
    const graph = await buildCodeGraphFromFiles([{ path: 'other.py', text: 'x = 1\n' }]);
    const gold = goldOn(parseGoldPatch(patch), graph);
    assert.deepEqual(gold.missingFiles, ['pkg/shapes.py']);
    assert.equal(gold.filesSkip, 'no file the patch edits is in the sdist');
  });

  test('qualified names drop the kind and a repeat suffix, and files have none', () => {
    assert.equal(qualifiedKey('method:a/b.py#Cls.meth@2'), 'a/b.py#Cls.meth');
    assert.equal(qualifiedKey('func:a/b.py#run'), 'a/b.py#run');
    assert.equal(qualifiedKey('class:src/x.py#Outer.Inner'), 'src/x.py#Outer.Inner');
    assert.equal(qualifiedKey('file:a/b.py'), undefined);
  });
});

describe('recall', () => {
  test('recall@k counts the gold items in the top k', () => {
    assert.equal(recallAt(['a', 'b'], ['x', 'a', 'y', 'b'], 1), 0);
    assert.equal(recallAt(['a', 'b'], ['x', 'a', 'y', 'b'], 2), 0.5);
    assert.equal(recallAt(['a', 'b'], ['x', 'a', 'y', 'b'], 10), 1);
  });

  test('ranks are 1-based and null beyond the ranking', () => {
    assert.deepEqual(goldRanks(['a', 'z'], ['x', 'a']), { a: 2, z: null });
  });

  test('the mean is over instances, each weighing the same', () => {
    const mean = meanRecall([
      { gold: ['a'], ranked: ['a'] },
      { gold: ['b', 'c'], ranked: ['b', 'x', 'x', 'x', 'x', 'c'] },
    ]);
    assert.deepEqual(mean, { 1: 0.75, 5: 0.75, 10: 1 });
  });
});

describe('baselines and inputs', () => {
  test('words carry their snake_case and CamelCase sub-words', () => {
    assert.deepEqual(bm25Tokens('parseHTTPResponse(raw_bytes) x'), ['parsehttpresponse', 'parse', 'http', 'response', 'raw_bytes', 'raw', 'bytes', 'x']);
  });

  test('BM25 ranks the document holding the rarer query word first', () => {
    const index = new PlainBm25();
    index.add(bm25Tokens('common words here'));
    index.add(bm25Tokens('common rare_thing'));
    index.add(bm25Tokens('common'));
    assert.deepEqual(index.search(bm25Tokens('rare common'), 2), [1, 2]);
  });

  test('sdist paths lose their top folder, so they read as in the repository', () => {
    assert.equal(repositoryPath('matplotlib-3.5.0/lib/matplotlib/axes/_base.py'), 'lib/matplotlib/axes/_base.py');
    assert.equal(repositoryPath('Django-3.0/'), undefined);
  });

  test('the issue’s first non-empty line is its title', () => {
    assert.deepEqual(issueOf('\n  Crash in filter\nWhen I call it\nit fails.\n'), { title: 'Crash in filter', body: 'When I call it\nit fails.' });
  });

  test('repositories are chosen by full or short name', () => {
    assert.equal(repoWanted('django/django', new Set(['django'])), true);
    assert.equal(repoWanted('psf/requests', new Set(['django/django'])), false);
  });
});
