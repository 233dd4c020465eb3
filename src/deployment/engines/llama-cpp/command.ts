/**
 * Where llama-server starts in a command's words, and what llama.cpp's images run:
 *   - `llama-server …`, any path ending in /llama-server;
 *   - builds from before mid-2024 named the binary `server`: read as llama-server only when that
 *     is unambiguous — a path (`./server`, `build/bin/server`, `…/llama.cpp/…/server`) given a
 *     GGUF model (`-m x.gguf`, `--model x.gguf`) or a Hugging Face repo (`-hf`);
 *   - the ggml-org (formerly ggerganov) llama.cpp images: `:server*` has llama-server as its
 *     entrypoint, so a container given only arguments runs `llama-server ARGS`; `:full*` runs
 *     tools.sh, whose `--server` / `-s` execs llama-server with the rest; `:light*` runs llama-cli.
 * Other llama.cpp programs (llama-cli, llama-bench …) are named as not a server launch.
 */
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** llama.cpp programs that are no server (llama-cli has no --server: it chats on the terminal). */
export const LLAMA_CPP_TOOLS = new Set([
  'llama-cli',
  'llama-bench',
  'llama-quantize',
  'llama-perplexity',
  'llama-completion',
  'llama-gguf-split',
  'llama-embedding',
  'llama-run',
  'llama-simple',
  'llama-imatrix',
]);

export type LlamaServerEntry = 'llama-server' | 'server';

/** Whether the words starting at `i` start llama-server, and as which binary. */
export function llamaServerAt(words: readonly { text: string }[], i: number): LlamaServerEntry | undefined {
  const word = words[i]?.text ?? '';
  const name = basename(word);
  if (name === 'llama-server') return 'llama-server';
  if (
    name === 'server' &&
    word.includes('/') &&
    /(^|\/)(\.|build\/bin|bin|llama\.cpp[^/]*)\/server$|llama/i.test(word) &&
    hasLlamaModel(words, i + 1)
  )
    return 'server';
  return undefined;
}

/** A launch's tokens start llama-server (what the source matched): the binary word and which it is. */
export function llamaServerProgram(tokens: readonly { text: string }[]): LlamaServerEntry | undefined {
  return llamaServerAt(tokens, 0);
}

function hasLlamaModel(words: readonly { text: string }[], from: number): boolean {
  for (let k = from; k < words.length - 1; k++) {
    const t = words[k].text;
    if ((t === '-m' || t === '--model') && /\.(gguf|bin)$/i.test(words[k + 1].text)) return true;
    if (t === '-hf' || t === '--hf-repo') return true;
  }
  return false;
}

export function isLlamaCppTool(word: string): boolean {
  return LLAMA_CPP_TOOLS.has(basename(word));
}

export interface LlamaCppImage {
  /** `server`: entrypoint llama-server; `full`: tools.sh (`--server` runs llama-server); `light`: llama-cli. */
  variant: 'server' | 'full' | 'light';
  /** The build the tag names (`server-cuda-b6123` → 6123). */
  build?: number;
  tag: string;
}

const IMAGE = /^(?:ghcr\.io\/)?(?:ggml-org|ggerganov)\/llama\.cpp:([\w.-]+)(?:@sha256:[0-9a-f]+)?$/i;

/** The official llama.cpp images (ghcr.io/ggml-org/llama.cpp, the older ghcr.io/ggerganov/llama.cpp). */
export function llamaCppImage(image: string | undefined): LlamaCppImage | undefined {
  const m = image ? IMAGE.exec(image.trim()) : null;
  if (!m) return undefined;
  const tag = m[1];
  const variant = /^server/i.test(tag)
    ? 'server'
    : /^full/i.test(tag)
      ? 'full'
      : /^light/i.test(tag)
        ? 'light'
        : undefined;
  if (!variant) return undefined;
  const build = /-b(\d+)$/.exec(tag);
  return { variant, tag, ...(build ? { build: Number(build[1]) } : {}) };
}

/** The note an image entrypoint form leaves. */
export function imageEntrypointNote(image: string, full: boolean): string {
  return full
    ? `the ${image} image runs tools.sh, whose --server runs llama-server with the rest of the arguments`
    : `no command given: the ${image} image's entrypoint is llama-server, which runs with these arguments`;
}
