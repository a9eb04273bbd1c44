// The error of a LIST whose pages never end.

/**
 * A LIST abandoned because its pages would not end: more than `maxListPages` pages, or a `continue` token the
 * server had already sent (it would loop for ever). Reported on the informer's `errors$`; the LIST is retried
 * from the start with backoff.
 */
export class PaginationError extends Error {
  /** Always `'PaginationError'`. */
  override readonly name = 'PaginationError';
  constructor(
    /** The collection path listed. */
    readonly path: string,
    /** Pages fetched before giving up. */
    readonly pages: number,
    /** The `continue` token of the last page. */
    readonly continueToken: string,
    /** Why: the page limit, or a token seen before. */
    readonly reason: 'tooManyPages' | 'repeatedContinue',
  ) {
    super(
      `LIST ${path}: ` +
        (reason === 'tooManyPages'
          ? `still not complete after ${pages} pages (maxListPages); abandoned`
          : `the server sent continue token ${JSON.stringify(continueToken.slice(0, 60))} twice (page ${pages}); abandoned`),
    );
  }
}
