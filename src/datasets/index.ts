/** Recorded runs as eval data: cases read from finished runs, and the JSON Lines files that hold them. */
export { casesFromRuns, type CasesFromRunsOptions } from "./cases-from-runs.js";
export { readCases, writeCases } from "./case-file.js";
export {
  isRecordedCase,
  recordedCaseJsonSchema,
  recordedCaseSchema,
  type RecordedCase,
  type Recording,
} from "./recorded-case.js";
export { caseMemorySchema, type EvalCaseMemory, type EvalCaseMemoryMessage } from "./case-memory.js";
export { CaseFileError, DatasetError } from "./errors.js";
