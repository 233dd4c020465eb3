/**
 * Runs a short fact-finding program (nvidia-smi, python -c …) with an argv array, a timeout and a
 * size cap. Any failure — missing program, non-zero exit, timeout — is "no answer", with the reason,
 * because guard reports missing facts as unknown instead of failing.
 */
import { execFile } from 'node:child_process';

export interface ProbeResult {
  ok: boolean;
  stdout: string;
  /** What it wrote on stderr (llama-server prints its version there). */
  stderr?: string;
  /** Why there is no answer, when ok is false. */
  why?: string;
}

export type Probe = (
  file: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; timeoutMs: number },
) => Promise<ProbeResult>;

export const runProbe: Probe = (file, args, opts) =>
  new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: opts.env, timeout: opts.timeoutMs, maxBuffer: 1 << 20, windowsHide: true, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        const why =
          e.code === 'ENOENT'
            ? `${file} not found on PATH`
            : e.killed
              ? `${file} timed out after ${opts.timeoutMs} ms`
              : `${file} failed (${typeof e.code === 'number' ? `exit ${e.code}` : (e.code ?? e.message)})${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`;
        resolve({ ok: false, stdout, stderr, why });
      },
    );
  });
