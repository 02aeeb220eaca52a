/** A mistake on the command line: reported with the command's usage line, exit code 2. */
export class UsageError extends Error {}
