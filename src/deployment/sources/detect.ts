/**
 * What kind of launch file a path holds, from its name first and its content second.
 * YAML (and JSON, which is YAML) covers Kubernetes, KServe, Helm values, Compose, llama-swap and
 * vLLM config files — which of those is decided per document (collect.ts). Dockerfiles
 * (`Dockerfile`, `Containerfile`, `*.Dockerfile`, `Dockerfile.*`), systemd units (`.service`, and a
 * `.conf` drop-in with a `[Service]`-style section), Ollama Modelfiles and Nix modules (`.nix`) have
 * their own readers; everything else is read as a shell script, the form most launch commands are
 * written in.
 */
import { basename, extname } from 'node:path';
import { looksLikeModelfile } from '../engines/ollama/modelfile.js';

export type FileKind = 'shell' | 'yaml' | 'dockerfile' | 'systemd' | 'modelfile' | 'nix';

const YAML_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const SHELL_EXTENSIONS = new Set(['.sh', '.bash', '.zsh', '.ksh', '.command', '.env']);
const SYSTEMD_SECTION = /^\[(Unit|Service|Install|Socket|Timer|Path|Mount|Slice|Scope)\]\s*$/m;
const DOCKER_INSTRUCTION =
  /^\s*(RUN|CMD|ENTRYPOINT|ENV|COPY|ADD|WORKDIR|EXPOSE|ARG|USER|LABEL|VOLUME|HEALTHCHECK|SHELL|STOPSIGNAL|ONBUILD)\b/im;

export function detectFileKind(path: string, text: string): FileKind {
  const name = basename(path);
  const ext = extname(path).toLowerCase();
  if (YAML_EXTENSIONS.has(ext)) return 'yaml';
  if (SHELL_EXTENSIONS.has(ext) || text.startsWith('#!')) return 'shell';
  if (ext === '.service' || (ext === '.conf' && SYSTEMD_SECTION.test(text))) return 'systemd';
  if (ext === '.nix') return 'nix';
  if (/(^|[-_.])Modelfile$/i.test(name) || ext === '.modelfile') return 'modelfile';
  if (
    /(^|[-_.])(Dockerfile|Containerfile)$/i.test(name) ||
    /^(Dockerfile|Containerfile)[.-]/i.test(name) ||
    ext === '.dockerfile' ||
    ext === '.containerfile'
  )
    return 'dockerfile';
  if (/^(docker-)?compose/i.test(name)) return 'yaml';
  const firstLine = text.split('\n').find((l) => l.trim() !== '' && !l.trimStart().startsWith('#')) ?? '';
  if (/^\s*FROM\s+\S/i.test(firstLine)) {
    if (DOCKER_INSTRUCTION.test(text)) return 'dockerfile';
    if (looksLikeModelfile(text)) return 'modelfile';
  }
  if (/^(---|\s*-\s|[A-Za-z_][\w./-]*:(\s|$)|\{)/.test(firstLine)) return 'yaml';
  return 'shell';
}
