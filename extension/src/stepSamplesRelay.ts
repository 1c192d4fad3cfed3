/**
 * The metrics page's sample table, on the extension's side: it fetches a training step's table of
 * sampled episodes (`graphPlanner/runs/stepSamples`) for the page, opens a sampled episode in the
 * trajectory viewer and a step's GRPO group in the group view. The page names an episode by id; its
 * path comes from the table this relay last fetched and must stay inside the run folder.
 */
import { isAbsolute, join, relative } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { StepSamplesLine } from '../../server/src/protocol/metrics.js';
import type { StepSamplesPageMessage } from '../../server/src/protocol/stepSamplesView.js';
import type { StepSamplesWebviewMessage } from '../../server/src/protocol/stepSamplesWebview.js';
import type { ExtensionState } from './extensionState.js';
import { showEpisodeGroup } from './episodeGroup.js';
import { runStepSamples, sendRequest } from './serverMessages.js';
import { openTrajectoryAt } from './trajectoryEditor.js';

export class StepSamplesRelay {
  private latest: StepSamplesLine | null = null;

  constructor(
    private readonly extensionState: ExtensionState,
    private readonly client: LanguageClient,
    private readonly dir: string,
    private readonly post: (message: StepSamplesPageMessage) => Promise<void>,
  ) {}

  async handle(message: StepSamplesWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'stepSamples': {
        const result = await sendRequest(this.client, runStepSamples, { dir: this.dir, step: message.step });
        this.latest = result.samples;
        if (result.problems.length > 0) this.extensionState.log.warn(`Step samples of ${this.dir}: ${result.problems.slice(0, 3).join('; ')}`);
        await this.post({ type: 'stepSamples', result });
        return;
      }
      case 'openSample': {
        const episode = this.latest?.episodes.find((e) => e.episode_id === message.episodeId);
        if (episode === undefined) return;
        const file = join(this.dir, episode.trajectory);
        const inside = relative(this.dir, file);
        if (inside.startsWith('..') || isAbsolute(inside)) {
          void vscode.window.showWarningMessage(
            `Graph Planner: the sample table names a trajectory outside its run folder (${episode.trajectory}); it is not opened.`,
          );
          return;
        }
        await openTrajectoryAt(vscode.Uri.file(file), null);
        return;
      }
      case 'openGroup':
        showEpisodeGroup(this.extensionState, this.dir, { kind: 'step', step: message.step, taskId: message.taskId, groupId: null });
        return;
    }
  }
}
