/**
 * A forwarding HTTP proxy on 127.0.0.1 whose upstream can be switched while it runs: what a
 * Kubernetes Service does when a rollout replaces the pods behind it. Each request goes to the
 * upstream current when it arrives; an unreachable upstream answers 502.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SwitchProxy {
  url: string;
  switchTo(upstream: string): void;
  close(): Promise<void>;
}

export async function startSwitchProxy(upstream: string): Promise<SwitchProxy> {
  let current = new URL(upstream);
  const server = createServer((req, res) => {
    const forward = request(
      { host: current.hostname, port: current.port, method: req.method, path: req.url, headers: { ...req.headers, host: current.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: upstream ${current.host} failed: ${e.message}\n`);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    switchTo: (next) => {
      current = new URL(next);
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
