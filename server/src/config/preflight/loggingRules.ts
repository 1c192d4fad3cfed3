/**
 * Logging settings that contradict each other: Verl told to log to W&B while W&B is off, and
 * offline mode on a W&B integration that is not enabled.
 */
import { finding, type KeyPath } from '../../protocol/index.js';
import { related, setFix, type Rule } from './rule.js';

const LOG_BACKEND: KeyPath = ['logging', 'log_backend'];
const WANDB_ENABLED: KeyPath = ['logging', 'wandb', 'enabled'];
const WANDB_OFFLINE: KeyPath = ['logging', 'wandb', 'offline'];

export const wandbBackendRule: Rule = {
  name: 'wandb-backend',
  check(config) {
    if (config.logging.log_backend !== 'wandb' || config.logging.wandb.enabled) return [];
    return [
      finding({
        code: 'preflight/wandb-backend-disabled',
        severity: 'warning',
        message:
          'log_backend is wandb but logging.wandb.enabled is false, so Verl logs to a W&B run that Graph Planner never set up (project, entity, offline mode). Enable W&B or pick another backend.',
        path: LOG_BACKEND,
        related: [related(WANDB_ENABLED, 'W&B is disabled here')],
        fixes: [
          setFix('Enable W&B: set logging.wandb.enabled to true', [[WANDB_ENABLED, true]], true),
          setFix('Log to files instead: set logging.log_backend to file', [[LOG_BACKEND, 'file']]),
        ],
      }),
    ];
  },
};

export const wandbOfflineRule: Rule = {
  name: 'wandb-offline',
  check(config) {
    const { enabled, offline } = config.logging.wandb;
    if (!offline || enabled) return [];
    return [
      finding({
        code: 'preflight/wandb-offline-without-enabled',
        severity: 'info',
        message: 'logging.wandb.offline has no effect while logging.wandb.enabled is false. Enable W&B to keep offline logs, or remove offline.',
        path: WANDB_OFFLINE,
        related: [related(WANDB_ENABLED, 'W&B is disabled here')],
        fixes: [
          // Turning offline off changes nothing the run does, so it is the safe default.
          setFix('Set logging.wandb.offline to false', [[WANDB_OFFLINE, false]], true),
          setFix('Enable W&B: set logging.wandb.enabled to true', [[WANDB_ENABLED, true]]),
        ],
      }),
    ];
  },
};
