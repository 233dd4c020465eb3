/**
 * A hazard's examples as data: a launch that fires it and one that does not, each a shell command
 * plus the facts lint would otherwise take from options (GPU, model config, versions). The docs page
 * shows them; the catalog's table tests lint them, apply every remedy and non-remedy to the failing
 * one and lint the result (test/helpers/hazards/).
 */

export interface ExampleLaunch {
  /** The launch as a shell command (`\` continuations and `VAR=value` prefixes allowed). */
  command: string;
  /** The GPU as `--gpu` takes it ("NVIDIA B200"); absent = not given. */
  gpu?: string;
  /** A model preset (examples/models.ts) standing in for `--model-config`; absent = not given. */
  model?: string;
  /** `--vllm-version`. */
  vllm?: string;
  /** `--flashinfer-version`. */
  flashinfer?: string;
}

export interface FailingExample extends ExampleLaunch {
  /** The word of `command` the finding points at (the flag a user would change first). */
  points: string;
  /**
   * The record cannot settle every condition even for the reported launch (e.g. affected builds
   * known only by pull request): the example fires as "possibly affected".
   */
  possibly?: boolean;
}

export interface HazardExamples {
  failing: FailingExample;
  clean: ExampleLaunch;
}

/** Where `word` is written in `command` (1-based line and column), or undefined. */
export function wordPosition(command: string, word: string): { line: number; column: number } | undefined {
  const lines = command.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const re = new RegExp(`(^|[\\s'"=])(${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})(?=$|[\\s'"=])`);
    const m = re.exec(lines[i]);
    if (m) return { line: i + 1, column: m.index + m[1].length + 1 };
  }
  return undefined;
}
