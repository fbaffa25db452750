/**
 * An OpenID Connect id-token held between requests, used until shortly before the `exp` it carries
 * (client-go's margin), judged on an injected clock.
 */

/** How long before its `exp` a held id-token is no longer sent: client-go's margin, so none expires in flight. */
export const ID_TOKEN_EXPIRY_MARGIN_MS = 10_000;

/** When the id-token in a `Bearer` value expires (its JWT `exp`, in ms since the epoch); `undefined` when it cannot be read. */
export function idTokenExpiry(authorization: unknown): number | undefined {
  if (typeof authorization !== 'string') return undefined;
  const payload = authorization.replace(/^Bearer /, '').split('.')[1];
  try {
    const { exp } = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The one `Authorization` value held. */
export interface HeldIdToken {
  /** The held value while it has more than {@link ID_TOKEN_EXPIRY_MARGIN_MS} left; else `undefined`. */
  current(): unknown;
  /** Holds `authorization`; a value whose expiry cannot be read is not held (it is asked for each time). */
  keep(authorization: unknown): void;
  /** Stops holding `authorization` (refused by the API server); one already replaced stays. */
  drop(authorization: unknown): void;
}

/** A holder judging expiry by `now` (ms since the epoch). */
export function heldIdToken(now: () => number): HeldIdToken {
  let held: { authorization: unknown; usableUntil: number } | undefined;
  return {
    current: () => (held && now() < held.usableUntil ? held.authorization : undefined),
    keep(authorization) {
      const expiresAt = idTokenExpiry(authorization);
      held = expiresAt === undefined ? undefined : { authorization, usableUntil: expiresAt - ID_TOKEN_EXPIRY_MARGIN_MS };
    },
    drop(authorization) {
      if (held?.authorization === authorization) held = undefined;
    },
  };
}
