/**
 * The one error family of our HTTP code, so a caller can catch one type: the errors our JSON
 * services answer with (cluster/jsonHttp.ts) and what a client saw go wrong, whether a sandbox
 * host's answer (cluster/hostClient.ts), a model endpoint's (agents/retry.ts `ModelClientError`)
 * or the Hugging Face hub's (datasets/hfHttp.ts `HubError`). Each subclass keeps its own codes and
 * messages; the base holds what they share.
 */

export class HttpError extends Error {
  /** The URL that was asked, without credentials, when it is known. */
  readonly url: string | undefined;
  constructor(
    /** The HTTP status of the answer, when one came. */
    readonly status: number | undefined,
    readonly code: string,
    message: string,
    url?: string,
    /** The start of the answer's body, when it helps to see what the server said. */
    readonly bodyExcerpt?: string,
  ) {
    super(message);
    this.url = url === undefined ? undefined : withoutCredentials(url);
  }
}

/** `url` without a user name or password; a URL that does not parse is kept as it is. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/**
 * A failure of a request one of our clients made to a server that is not ours (a model endpoint,
 * the hub): its status is that server's, so a service of ours that meets one answers 500, never
 * that status (cluster/jsonHttp.ts `errorReply`).
 */
export class ForeignHttpError extends HttpError {}
