/**
 * The `url` label of the hook metrics. Metacontroller labels them with the webhook URL as written,
 * but `/metrics` is served without authentication, and a URL can carry a password
 * (`https://user:pass@host/`) or a token (`?token=...`). The label keeps what identifies the hook —
 * scheme, host, port and path — and drops the rest, which also keeps one series per hook when a
 * rotated token changes the query.
 */

/**
 * Cuts userinfo, then query and fragment, from text that does not parse as a URL; userinfo first,
 * because in text like this a password may hold a raw `?` or `#`.
 */
function strippedText(url: string): string {
  const withoutUserinfo = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  const [beforeQuery = ''] = withoutUserinfo.split(/[?#]/, 1);
  return beforeQuery;
}

/**
 * `url` without userinfo, query or fragment. A URL that has none of them comes back exactly as
 * given (so `http://hook.default:80/sync` and loom's `jsonata:inline` or
 * `jsonata:configmap/<ns>/<name>/<key>` keep Metacontroller's and loom's labels byte for byte);
 * otherwise it is the parsed URL re-serialised without them.
 */
export function hookUrlLabel(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return strippedText(url);
  if (parsed.username === '' && parsed.password === '' && !/[?#]/.test(url)) return url;
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  // An empty `?` or `#` survives in the serialisation of some schemes; nothing can follow it now.
  return parsed.href.replace(/[?#]+$/, '');
}
