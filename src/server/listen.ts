/**
 * The only file that binds a port: the hono app on @hono/node-server. 127.0.0.1 by default; port 0
 * picks a free port, and the bound address is returned (the serve command prints it on a
 * "listening on http://HOST:PORT" line that tests and executors read).
 * `close()` stops accepting connections, lets responses in flight finish for up to `graceMs`, then
 * drops whatever connections remain.
 */
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Hono } from 'hono';
import { UserError } from '../core/errors.js';

export interface Listening {
  host: string;
  port: number;
  url: string;
  close(graceMs: number): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  // Generation can take long, so no request timeout. Idle keep-alive sockets are closed by the client,
  // never by a server timer: an engine step blocks the event loop (seconds for long prefills), and a
  // keep-alive timer that fires right after such a step runs before the socket is read, destroying a
  // socket the client has just sent its next request on (ECONNRESET; seen with the probe's undici client).
  // SIGTERM still closes every connection (close() below).
  server.requestTimeout = 0;
  server.keepAliveTimeout = 0;
  server.headersTimeout = 60_000;
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) =>
      reject(
        new UserError(`cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}`, {
          code: 'E_LISTEN',
          hint: e.code === 'EADDRINUSE' ? 'pick another --port, or --port 0 for a free one' : 'check --host and --port',
        }),
      );
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address() as AddressInfo;
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        host: addr.address,
        port: addr.port,
        url: `http://${shownHost}:${addr.port}`,
        close: (graceMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
