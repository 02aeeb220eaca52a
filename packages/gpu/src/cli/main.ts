/** The `irserve-gpu-install` command line: `irserve-gpu-install cuda|vulkan [--dry_run]`. */
import { installCli } from './install-cli.js';

process.exitCode = await installCli(process.argv.slice(2));
