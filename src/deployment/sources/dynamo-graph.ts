/**
 * NVIDIA Dynamo `DynamoGraphDeployment` → the launches of its services: each
 * `spec.services.NAME.extraPodSpec.mainContainer` whose `args` is one shell command line (the
 * vLLM runtime image runs it with `sh -c`), or an explicit command + args. The service name gives
 * the role (…Prefill… → prefill, …Decode… → decode); the frontend is not a vLLM server.
 */
import type { Node } from 'yaml';
import { launchesFromContainer } from './container.js';
import type { LaunchCommand } from './launch-command.js';
import { kubernetesEnv } from './kubernetes.js';
import { launchesFromShell } from './shell.js';
import { mapEntries, mapGet, mapPath, scalarField, scalarFields, scalarText, seqItems, type YamlFile } from './yaml-positions.js';

export function isDynamoGraph(y: YamlFile, doc: Node): boolean {
  return scalarText(y, mapGet(doc, 'kind')) === 'DynamoGraphDeployment';
}

export function launchesFromDynamoGraph(y: YamlFile, doc: Node, baseDir: string): LaunchCommand[] {
  const name = scalarText(y, mapPath(doc, 'metadata', 'name')) ?? '?';
  return mapEntries(mapPath(doc, 'spec', 'services')).flatMap((svc) => {
    const main = mapPath(svc.value, 'extraPodSpec', 'mainContainer');
    if (!main) return [];
    const role = /prefill/i.test(svc.key) ? 'prefill' : /decode/i.test(svc.key) ? 'decode' : undefined;
    const source = { file: y.file, kind: 'kubernetes' as const, object: `DynamoGraphDeployment/${name} services.${svc.key}` };
    const command = mapGet(main, 'command');
    const args = seqItems(mapGet(main, 'args'));
    let launches: LaunchCommand[];
    if (!command && args.length === 1) {
      const script = scalarField(y, args[0]);
      if (!script) return [];
      launches = launchesFromShell(script.text, {
        source,
        baseDir,
        locate: (o) => script.charAt?.(o) ?? script.at ?? { file: y.file, line: 1, column: 1 },
        env: new Map(),
        unsetReason: "is not set in the service's env",
      });
    } else {
      launches = launchesFromContainer({
        source,
        baseDir,
        image: scalarField(y, mapGet(main, 'image')),
        command: command ? scalarFields(y, command) : undefined,
        args: scalarFields(y, mapGet(main, 'args')),
        env: kubernetesEnv(y, mapGet(main, 'env')),
        kubernetesVars: true,
        gpuHints: [],
        notes: [],
        unsetReason: "is not set in the container's env",
      });
    }
    for (const l of launches) if (role) l.role ??= role;
    return launches;
  });
}
