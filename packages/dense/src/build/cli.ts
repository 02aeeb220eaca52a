// Placeholder: the builder CLI is being written.
console.error('irserve-build-index: not built yet');
process.exitCode = 1;
