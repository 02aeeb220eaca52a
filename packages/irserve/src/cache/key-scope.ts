/**
 * What an external store's keys carry besides the request: the fingerprint of what determines
 * the answers (DESIGN section 4). Keys of a service look like `bm25:<hash>`; in a shared store
 * they become `bm25@<fingerprint>:<hash>`, so a service whose engine, config, index or model
 * changed never reads the entries of the old one, while replicas of one configuration share.
 * The fingerprint is known once the engine has started (it opened its files then).
 */
export class KeyScope {
  #fingerprint: string | undefined;

  /** Sets the fingerprint; the store reads and writes from then on. */
  settle(fingerprint: string): void {
    this.#fingerprint = fingerprint;
  }

  get settled(): boolean {
    return this.#fingerprint !== undefined;
  }

  /**
   * The key with the fingerprint after its first segment (the service, or `pipeline`).
   *
   * @example scope.apply('bm25:["q",10,null]') // 'bm25@3f2a9c0d1e4b5a67:["q",10,null]'
   */
  apply(key: string): string {
    const colon = key.indexOf(':');
    const at = colon < 0 ? key.length : colon;
    return `${key.slice(0, at)}@${this.#fingerprint ?? ''}${key.slice(at)}`;
  }
}
