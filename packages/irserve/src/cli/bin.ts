import { main } from './main.js';

// Entry point of the `irserve` command (bin/irserve.js loads the compiled copy of this file).
process.exitCode = await main(process.argv.slice(2));
