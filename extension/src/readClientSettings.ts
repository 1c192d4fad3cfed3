/**
 * Reads the client settings (`clientSettings.ts`) from the editor's configuration and says which
 * configuration changes concern them. It is kept apart from `clientSettings.ts` because it imports
 * `vscode`, which plain `node --test` unit tests cannot load.
 */
import * as vscode from 'vscode';
import { parseClientSettings, restartSettingKeys, settingsSection, type ClientSettings } from './clientSettings.js';

export function currentSettings(): ClientSettings {
  const config = vscode.workspace.getConfiguration(settingsSection);
  return parseClientSettings((key) => config.get<unknown>(key));
}

/** A change to the globs or the server path needs a new client, not just a notification. */
export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  return restartSettingKeys.some((key) => event.affectsConfiguration(`${settingsSection}.${key}`));
}

export function affectsTrace(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${settingsSection}.trace`);
}

export function affectsSelector(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${settingsSection}.experimentGlobs`) || event.affectsConfiguration(`${settingsSection}.datasetGlobs`);
}
