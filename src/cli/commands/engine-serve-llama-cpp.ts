/**
 * `faultline engine serve --runtime llama.cpp --model FILE.gguf [llama-server options]`: the same
 * OpenAI-compatible server over llama.cpp (src/llama-cpp/). Loaded only when --runtime llama.cpp is
 * given; options and the GGUF are checked, and the model loaded, before the port is bound.
 */
import { basename } from 'node:path';
import { resolve } from 'node:path';
import { buildLlamaCppServer } from '../../llama-cpp/build-server.js';
import { parseLlamaCppArgv } from '../../llama-cpp/flags.js';
import type { CliIO } from '../io.js';
import type { listenUntilStopped } from './engine-serve.js';

export async function runLlamaCppServe(
  flags: string[],
  io: CliIO,
  listen: typeof listenUntilStopped,
): Promise<void> {
  const s = parseLlamaCppArgv(flags, (p) => resolve(io.cwd, p));
  const modelId = s.alias ?? basename(s.model).replace(/\.gguf$/i, '');
  const built = await buildLlamaCppServer(s, modelId);
  io.err(`llama.cpp: ${built.summary} as "${modelId}" · max_model_len ${built.ctx.maxModelLen}\n`);
  // a known defect of the pinned node-llama-cpp, said where the launch turns it on
  if (s.options.parallel > 1)
    io.err(
      `warning: --parallel ${s.options.parallel}: node-llama-cpp 3.21.1 samples the sequences of a batch on concurrent threads, and a request can get another request's next-token distribution (docs/findings/004); --parallel 1 avoids it\n`,
    );
  if (io.env.LLAMA_ATTN_ROT_DISABLE)
    io.err(
      `note: LLAMA_ATTN_ROT_DISABLE=${io.env.LLAMA_ATTN_ROT_DISABLE}: no Hadamard rotation of quantized K/V\n`,
    );
  await listen(built, s.host, s.port, s.shutdownSeconds, io);
}
