/**
 * The hook server's request timeouts on a real socket: a client that sends its request slowly (a
 * byte at a time, never idle) is answered 408 and disconnected, while a prompt request to a slow
 * handler is still answered.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createHookServer, type HookServer, type HookServerOptions } from './hook-server.ts';

const started: HookServer[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function serve(options: HookServerOptions): Promise<URL> {
  const server = createHookServer({ logger: false, ...options });
  started.push(server);
  return new URL(await server.listen({ port: 0 }));
}

/** What the server wrote before it closed the connection. */
interface Outcome {
  response: string;
  /** Whether the server closed the connection (rather than the client giving up). */
  closedByServer: boolean;
}

/**
 * Sends `head` at once, then one byte of `drip` every 20 ms (so the socket is never idle) until the
 * server closes the connection; if `drip` runs out first, the client gives up and closes it itself.
 * Resolves to what the server wrote.
 */
async function trickle(url: URL, head: string, drip: string): Promise<Outcome> {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  sockets.push(socket);
  let response = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => { response += chunk; });
  socket.on('error', () => { /* a reset after the 408 is the server closing: the close event reports it */ });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(head);
  let open = true;
  void closed.then(() => { open = false; });
  for (const byte of drip) {
    await sleep(20);
    if (!open) break;
    socket.write(byte);
  }
  const closedByServer = !open;
  socket.destroy();
  await closed;
  return { response, closedByServer };
}

/**
 * Sends `request` in one write, as loom does, so the server reads it whole in one go however busy the
 * machine (a client that writes headers and body apart can be held between the two for longer than a
 * short limit); resolves to the response once the server closes the connection.
 */
async function sendWhole(url: URL, request: string): Promise<string> {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  sockets.push(socket);
  let response = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => { response += chunk; });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(request);
  await closed;
  return response;
}

const slowBodyHead = (length: number): string =>
  `POST /sync HTTP/1.1\r\nHost: hook\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`;

describe('createHookServer timeouts', () => {
  it('answers 408 and closes the connection when the body arrives too slowly', async () => {
    const url = await serve({ requestTimeout: 300, composite: { sync: () => ({}) } });
    // Ten times the timeout's worth of bytes at this pace: the server has to give up first.
    const drip = ' '.repeat(150);
    const { response, closedByServer } = await trickle(url, slowBodyHead(drip.length + 2), drip);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedByServer).toBe(true);
  });

  it('answers 408 and closes the connection when the headers arrive too slowly', async () => {
    const url = await serve({ headersTimeout: 300, composite: { sync: () => ({}) } });
    const drip = 'X-Slow: ' + 'a'.repeat(142);
    const { response, closedByServer } = await trickle(url, 'POST /sync HTTP/1.1\r\nHost: hook\r\n', drip);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedByServer).toBe(true);
  });

  it('still answers a request that arrived in time, however long the handler takes', async () => {
    const url = await serve({
      requestTimeout: 200,
      composite: { sync: async () => { await sleep(600); return { status: { done: true } }; } },
    });
    const body = JSON.stringify({ parent: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'web' } } });
    const head = `POST /sync HTTP/1.1\r\nHost: hook\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    const response = await sendWhole(url, head + body);
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))).toEqual({ status: { done: true } });
  });
});
