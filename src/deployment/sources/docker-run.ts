/**
 * `docker run [OPTIONS] IMAGE [COMMAND [ARG…]]` (also podman / nerdctl / nvidia-docker): which
 * words are options, which is the image, what runs inside, and what reaches the container
 * (-e/--env only: the host shell's exports do not cross into a container).
 * Option names follow the Docker CLI reference for `docker container run`.
 */
import type { Located } from '../../core/located.js';
import type { ArgField } from './arg-field.js';

/** Options that take a value (long names, and short letters). Everything else is a boolean flag. */
const VALUE_OPTIONS = new Set(
  (
    'add-host annotation attach blkio-weight blkio-weight-device cap-add cap-drop cgroup-parent cgroupns cidfile ' +
    'cpu-count cpu-percent cpu-period cpu-quota cpu-rt-period cpu-rt-runtime cpu-shares cpus cpuset-cpus cpuset-mems ' +
    'detach-keys device device-cgroup-rule device-read-bps device-read-iops device-write-bps device-write-iops dns ' +
    'dns-opt dns-option dns-search domainname entrypoint env env-file expose gpus group-add health-cmd health-interval ' +
    'health-retries health-start-interval health-start-period health-timeout hostname ip ip6 ipc isolation kernel-memory ' +
    'label label-file link link-local-ip log-driver log-opt mac-address memory memory-reservation memory-swap ' +
    'memory-swappiness mount name network net network-alias net-alias oom-score-adj pid pids-limit platform publish pull ' +
    'restart runtime security-opt shm-size stop-signal stop-timeout storage-opt sysctl tmpfs ulimit user userns uts ' +
    'volume volume-driver volumes-from workdir'
  ).split(' '),
);
const VALUE_SHORT = new Set(['a', 'c', 'e', 'h', 'l', 'm', 'p', 'u', 'v', 'w']);

export interface DockerRun {
  image?: ArgField;
  /** What follows the image. */
  command: ArgField[];
  entrypoint?: ArgField;
  env: Map<string, Located<string>>;
  mounts: { container: string; host: string }[];
  notes: Located<string>[];
}

/**
 * Parses the words after `run`. `hostEnv` resolves `-e NAME` (no value: taken from the
 * environment of the shell that runs docker).
 */
export function parseDockerRun(words: ArgField[], hostEnv: (name: string) => Located<string> | undefined): DockerRun {
  const out: DockerRun = { command: [], env: new Map(), mounts: [], notes: [] };
  let i = 0;
  const take = (name: string, value: ArgField | undefined, at: ArgField) => applyOption(out, name, value, at, hostEnv);
  while (i < words.length) {
    const w = words[i];
    const t = w.text;
    if (t === '--') {
      i++;
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = eq < 0 ? t.slice(2) : t.slice(2, eq);
      if (eq >= 0) take(name, { text: t.slice(eq + 1), at: w.at }, w);
      else if (VALUE_OPTIONS.has(name)) take(name, words[++i], w);
      i++;
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      // a cluster such as -it or -dit; a value letter takes the rest of the word, or the next word
      for (let k = 1; k < t.length; k++) {
        if (!VALUE_SHORT.has(t[k])) continue;
        const rest = t.slice(k + 1);
        take(t[k], rest ? { text: rest, at: w.at } : words[++i], w);
        break;
      }
      i++;
      continue;
    }
    break;
  }
  out.image = words[i];
  out.command = words.slice(i + 1);
  return out;
}

function applyOption(
  out: DockerRun,
  name: string,
  value: ArgField | undefined,
  at: ArgField,
  hostEnv: (name: string) => Located<string> | undefined,
): void {
  if (!value) return;
  if (name === 'e' || name === 'env') {
    const eq = value.text.indexOf('=');
    if (eq > 0) out.env.set(value.text.slice(0, eq), { value: value.text.slice(eq + 1), at: value.at });
    else {
      const fromHost = hostEnv(value.text);
      if (fromHost) out.env.set(value.text, fromHost);
      else out.notes.push({ value: `-e ${value.text} passes the host's ${value.text}, which is not known here`, at: value.at });
    }
  } else if (name === 'env-file') {
    out.notes.push({ value: `--env-file ${value.text} is not read; its variables are unknown`, at: value.at });
  } else if (name === 'v' || name === 'volume') {
    const [host, container] = value.text.split(':');
    if (host && container) out.mounts.push({ host, container });
  } else if (name === 'mount') {
    const kv = new Map(value.text.split(',').map((s) => [s.split('=')[0], s.slice(s.indexOf('=') + 1)] as const));
    const host = kv.get('source') ?? kv.get('src');
    const container = kv.get('target') ?? kv.get('destination') ?? kv.get('dst');
    if (host && container) out.mounts.push({ host, container });
  } else if (name === 'entrypoint') {
    out.entrypoint = value;
  } else if (name === 'gpus') {
    out.notes.push({ value: `--gpus ${value.text} requests GPUs but does not name their model`, at: at.at });
  }
}
