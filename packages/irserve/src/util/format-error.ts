/**
 * A file that cannot be read as the format it claims. The message always starts with the file
 * (or "<buffer>" when parsing bytes handed over directly) so a failed build over hundreds of
 * shards names the culprit.
 */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}
