/**
 * Go-style listen addresses as Metacontroller's flags take them: `:9999` (all interfaces),
 * `127.0.0.1:8081`, `[::1]:8081`, or `0` to disable.
 */

/** Where to listen, or `undefined` when disabled. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses a flag value; throws a message naming the value when it is not an address. */
export function parseListenAddress(value: string): ListenAddress | undefined {
  if (value === '0' || value === '') return undefined;
  const match = /^(\[[^\]]+\]|[^:]*):(\d+)$/.exec(value);
  if (!match) throw new Error(`"${value}" is not a listen address (want host:port, :port or 0)`);
  const port = Number(match[2]);
  if (port > 65_535) throw new Error(`"${value}": port ${port} is out of range`);
  const host = match[1]!.replace(/^\[|\]$/g, '');
  return { host: host || '0.0.0.0', port };
}
