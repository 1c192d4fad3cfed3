/**
 * The sizes the webviews choose so they read well at any editor width (issue 37): the trajectory
 * viewer's step list, the code graph fitted on open, and a metrics chart's headline, which must be
 * the value its bold line ends at.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitScale, smallestScale } from '../../webview/src/codeGraph/fitScale.js';
import { defaultStepListShare, minDetailPx, minStepListPx, stepListShare, stepListWidth } from '../../webview/src/episode/stepListWidth.js';
import { smoothEma } from '../../webview/src/metrics/ema.js';
import { chartHeadline } from '../../webview/src/metrics/headline.js';

test('the step list takes a share of the editor by default, so a maximised editor gives it more room', () => {
  const half = stepListWidth(900, undefined);
  const maximised = stepListWidth(1900, undefined);
  assert.equal(maximised, Math.round(1900 * defaultStepListShare));
  assert.ok(maximised > 700, `a maximised editor's list is ${maximised} px, not a fixed column`);
  assert.ok(maximised > half);
});

test('the step list keeps a readable width and leaves the detail its own, whatever was saved', () => {
  assert.equal(stepListWidth(1000, 0.05), minStepListPx);
  assert.equal(stepListWidth(1000, 0.95), 1000 - minDetailPx);
  assert.equal(stepListWidth(1000, Number.NaN), stepListWidth(1000, undefined), 'a damaged saved share falls back to the default');
  // An editor too narrow for both keeps the list readable; the page stacks them there anyway.
  assert.equal(stepListWidth(400, 0.9), minStepListPx);
});

test('a dragged width is kept as a share of the editor, so it follows the editor when it is resized', () => {
  const share = stepListShare(600, 1200);
  assert.equal(share, 0.5);
  assert.equal(stepListWidth(1600, share), 800);
  assert.equal(stepListShare(10, 1200), minStepListPx / 1200, 'a drag past the narrowest is held there');
});

test('the code graph is fitted whole: the tighter of width and height decides, never above full size', () => {
  assert.equal(fitScale({ width: 1000, height: 400 }, { width: 500, height: 1000 }), 0.5, 'too wide: fitted to the width');
  assert.equal(fitScale({ width: 400, height: 1000 }, { width: 1000, height: 500 }), 0.5, 'too tall: fitted to the height');
  assert.equal(fitScale({ width: 200, height: 100 }, { width: 1000, height: 800 }), 1, 'a small graph is not blown up');
  assert.equal(fitScale({ width: 10_000, height: 10_000 }, { width: 500, height: 500 }), smallestScale, 'a huge graph stops at the smallest zoom and scrolls');
  assert.equal(fitScale({ width: 300, height: 300 }, { width: 0, height: 0 }), smallestScale);
});

test('a smoothed chart’s headline is its bold line’s last value, with the recorded value beside it', () => {
  const points = [
    { y: 1, step: 1 },
    { y: 1, step: 2 },
    { y: 0.5, step: 3 },
  ];
  const headline = chartHeadline(points, 0.6);
  assert.ok(headline !== undefined);
  assert.equal(
    headline.value,
    smoothEma(
      points.map((p) => p.y),
      0.6,
    ).at(-1),
  );
  assert.ok(headline.value > 0.5 && headline.value < 1, `smoothed ${headline.value}`);
  assert.deepEqual([headline.smoothed, headline.raw, headline.step], [true, 0.5, 3]);
});

test('an unsmoothed chart’s headline is the recorded value, and no point gives no headline', () => {
  assert.deepEqual(
    chartHeadline(
      [
        { y: 0.2, step: 4 },
        { y: 0.7, step: 5 },
      ],
      0,
    ),
    { value: 0.7, smoothed: false, raw: 0.7, step: 5 },
  );
  // A constant line's smoothed end is its value: nothing to tell apart.
  assert.equal(chartHeadline([{ y: 0.5 }, { y: 0.5 }], 0.9)?.smoothed, false);
  assert.equal(chartHeadline([], 0.6), undefined);
});
