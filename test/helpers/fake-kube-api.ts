/**
 * A fake Kubernetes API server for the Kubernetes executor's tests (written for faultline): the
 * paths and object shapes @kubernetes/client-node uses for Jobs, Services, Pods and pod logs, on
 * 127.0.0.1, so that the real client runs against it. A created Job gets one pod whose .status
 * walks through the test's script of situations (test/fixtures/kubernetes/api/pod-statuses.json);
 * Jobs can be given conditions (Failed: DeadlineExceeded) or deleted behind the executor's back.
 * A Job created suspended (a Kueue queue) is admitted at once, as Kueue does with quota free, or
 * kept suspended with `{ admit: false }`.
 * Every request is recorded, bodies included, for the tests to check what the client sent.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';

export const POD_STATUS = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../fixtures/kubernetes/api/pod-statuses.json', import.meta.url)),
    'utf8',
  ),
) as Record<string, unknown>;

type Obj = Record<string, unknown> & {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
};
export interface Step {
  status: string;
  ms?: number;
}

export interface FakeKubeApi {
  kubeConfig: k8s.KubeConfig;
  requests: { method: string; path: string; body?: unknown }[];
  jobs: Map<string, Obj>;
  services: Map<string, Obj>;
  /** Adds a Job condition (e.g. Failed / DeadlineExceeded). */
  jobCondition(name: string, type: string, reason: string): void;
  /** Deletes a Job and its pod as someone else would. */
  deleteBehind(name: string): void;
  close(): Promise<void>;
}

const matches = (labels: Record<string, string> | undefined, selector: string | null): boolean =>
  !selector || selector.split(',').every((kv) => labels?.[kv.split('=')[0]] === kv.split('=')[1]);

export async function startFakeKubeApi(
  script: (jobName: string) => Step[],
  options: { admit?: boolean } = {},
): Promise<FakeKubeApi> {
  const jobs = new Map<string, Obj>();
  const services = new Map<string, Obj>();
  const pods = new Map<string, { pod: Obj; steps: Step[]; born: number }>();
  const requests: FakeKubeApi['requests'] = [];
  const podStatus = (p: { steps: Step[]; born: number }): unknown => {
    let t = Date.now() - p.born;
    for (const [i, s] of p.steps.entries()) {
      if (i === p.steps.length - 1 || t < (s.ms ?? 0)) return POD_STATUS[s.status];
      t -= s.ms ?? 0;
    }
    return undefined;
  };
  const send = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const gone = (res: ServerResponse, kind: string, name: string) =>
    send(res, 404, {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: `${kind} "${name}" not found`,
      reason: 'NotFound',
      code: 404,
    });
  const handle = (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const selector = url.searchParams.get('labelSelector');
    requests.push({ method: req.method ?? '', path: url.pathname, ...(body !== undefined ? { body } : {}) });
    let m: RegExpMatchArray | null;
    if ((m = url.pathname.match(/^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/))) {
      const [, ns, name] = m;
      if (req.method === 'POST') {
        const job = body as Obj;
        const spec = job.spec as { suspend?: boolean };
        const held = spec.suspend === true && options.admit === false;
        jobs.set(job.metadata.name, {
          ...job,
          metadata: { ...job.metadata, namespace: ns },
          spec: { ...spec, suspend: held },
          status: {},
        });
        if (held) return send(res, 201, jobs.get(job.metadata.name));
        const template = (job.spec as { template: { metadata: { labels: Record<string, string> } } })
          .template;
        const podName = `${job.metadata.name}-x7k2p`;
        pods.set(podName, {
          pod: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: podName, namespace: ns, labels: template.metadata.labels },
            spec: { nodeName: 'gpu-node-3' },
          },
          steps: script(job.metadata.name),
          born: Date.now(),
        });
        return send(res, 201, jobs.get(job.metadata.name));
      }
      if (req.method === 'GET' && name)
        return jobs.has(name) ? send(res, 200, jobs.get(name)) : gone(res, 'jobs.batch', name);
      if (req.method === 'GET')
        return send(res, 200, {
          kind: 'JobList',
          apiVersion: 'batch/v1',
          metadata: {},
          items: [...jobs.values()].filter(
            (j) => j.metadata.namespace === ns && matches(j.metadata.labels, selector),
          ),
        });
      if (req.method === 'DELETE') {
        const names = name
          ? [name]
          : [...jobs.values()]
              .filter((j) => matches(j.metadata.labels, selector))
              .map((j) => j.metadata.name);
        if (name && !jobs.has(name)) return gone(res, 'jobs.batch', name);
        for (const n of names) {
          jobs.delete(n);
          for (const p of [...pods.keys()]) if (p.startsWith(`${n}-`)) pods.delete(p);
        }
        return send(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
      }
    }
    if ((m = url.pathname.match(/^\/api\/v1\/namespaces\/([^/]+)\/services(?:\/([^/]+))?$/))) {
      const [, , name] = m;
      if (req.method === 'POST') {
        const s = body as Obj;
        services.set(s.metadata.name, s);
        return send(res, 201, s);
      }
      if (req.method === 'GET')
        return send(res, 200, {
          kind: 'ServiceList',
          apiVersion: 'v1',
          metadata: {},
          items: [...services.values()].filter((s) => matches(s.metadata.labels, selector)),
        });
      if (req.method === 'DELETE') {
        if (!name || !services.has(name)) return gone(res, 'services', name ?? '');
        services.delete(name);
        return send(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
      }
    }
    if (/^\/api\/v1\/namespaces\/[^/]+\/pods$/.test(url.pathname) && req.method === 'GET')
      return send(res, 200, {
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: {},
        items: [...pods.values()]
          .filter((p) => matches(p.pod.metadata.labels, selector))
          .map((p) => ({ ...p.pod, status: podStatus(p) })),
      });
    if ((m = url.pathname.match(/^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/))) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`INFO: server log of ${m[2]}\n`);
      return;
    }
    send(res, 404, { kind: 'Status', code: 404, message: `fake: no route ${req.method} ${url.pathname}` });
  };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => handle(req, res, text ? JSON.parse(text) : undefined));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'tester', token: 'fake-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'tester' }],
    currentContext: 'fake',
  });
  return {
    kubeConfig,
    requests,
    jobs,
    services,
    jobCondition(name, type, reason) {
      const job = jobs.get(name)!;
      job.status = { conditions: [{ type, status: 'True', reason, message: `fake: ${reason}` }] };
    },
    deleteBehind(name) {
      jobs.delete(name);
      for (const p of [...pods.keys()]) if (p.startsWith(`${name}-`)) pods.delete(p);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
