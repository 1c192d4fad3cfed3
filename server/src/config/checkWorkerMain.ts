/**
 * The thread that checks large experiment YAMLs for the language server (checkWorker.ts): the same
 * check as on the main thread (checkConfigText, and the disk rules when asked), with every finding
 * located in the text, so only plain data crosses back.
 */
import { parentPort } from 'node:worker_threads';
import { checkConfigText, locateDiskFindings } from './check.js';
import { preflightDisk } from './preflight.js';
import type { CheckRequest, CheckReply } from './checkWorker.js';
import { errorMessage } from '../util/errors.js';

parentPort?.on('message', (request: CheckRequest) => {
  void answer(request).then((reply) => parentPort?.postMessage(reply));
});

async function answer(request: CheckRequest): Promise<CheckReply> {
  try {
    const check = checkConfigText(request.text);
    const disk = request.disk && check.config ? await preflightDisk(check.config, request.baseDir) : [];
    return { id: request.id, ok: true, findings: [...check.findings, ...locateDiskFindings(check, disk)] };
  } catch (error) {
    return { id: request.id, ok: false, message: errorMessage(error) };
  }
}
