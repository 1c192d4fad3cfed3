/** A run's pages (ARCHITECTURE.md §2): its report shaped for the report page, with pass@k, and the metrics page's per-step sample tables. */
export { readReportView, reportView } from './reportView.js';
export { readStepSamples, type StepSamplesRead } from './stepSamplesRead.js';
