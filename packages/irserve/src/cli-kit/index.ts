/**
 * The command-line kit every irserve command uses (`irserve` and its subcommands,
 * `irserve-build-index`, `irserve-encode`, `irserve-build-sparse-index`,
 * `irserve-build-plaid-index`, `irserve-gpu-install`): flags declared once, parsed alike (both
 * `--a_b` and `--a-b`), one `--help` layout, one-line errors, the same exit codes (0 done,
 * 1 failed, 2 usage or config mistake). Extras reach it through `irserve/plugin`; progress bars
 * with the time left are `createProgress` (`irserve`).
 */
export {
  flag,
  listing,
  type FlagSpec,
  type FlagSpecs,
  type FlagValues,
  type SwitchFlag,
  type ValueFlag,
} from './flag.js';
export { commonFlags, LOG_FORMATS, LOG_LEVELS } from './common-flags.js';
export { parseCommandLine, wantsHelp, type ParsedCommandLine } from './parse.js';
export {
  formatHelp,
  usageHint,
  usageLines,
  type CommandSpec,
  type PositionalSpec,
} from './command.js';
export {
  EXIT,
  reportFailure,
  runCommand,
  type CommandAction,
  type CommandInput,
  type RunOptions,
} from './run.js';
export { defaultIo, isEntryPoint, type CliIo } from './io.js';
export { UsageError } from './usage-error.js';
