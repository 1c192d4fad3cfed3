/**
 * The language server process. VS Code starts it over stdio (`node dist/server.js --stdio`); it
 * builds the engine services the server needs and hands them to `lsp/`, which never imports
 * editor code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { checkConfigText, ConfigCheckWorker, preflightDisk, renderConfigYaml } from './config/index.js';
import { startServer, type ServerServices } from './lsp/index.js';
import { validateJsonlFile, validateLine } from './tasks/index.js';
import { EpisodeGoldFinder, planLaunch, startFollowed } from './launch/index.js';

const startedAt = Date.now() - Math.round(process.uptime() * 1000);
const checkWorker = new ConfigCheckWorker();
const services: ServerServices = {
  config: {
    check: checkConfigText,
    checkDisk: preflightDisk,
    render: renderConfigYaml,
    checkOffThread: (key, text, options) => checkWorker.check(key, text, options),
  },
  datasets: { validateLine, validateFile: validateJsonlFile },
  readText: (path) => readFileSync(path, 'utf8'),
  // The bundled CLI sits next to this bundle (dist/cli.js), and runs on the Node running us.
  launch: { plan: (spec) => planLaunch(spec), start: (plan) => startFollowed(plan, { program: process.execPath, prefix: [join(__dirname, 'cli.js')] }) },
  codeGraph: {
    goldFinder: () => {
      const finder = new EpisodeGoldFinder();
      return (trajectory, start) => finder.find(trajectory, start);
    },
  },
};
startServer(createConnection(ProposedFeatures.all), services, startedAt);
