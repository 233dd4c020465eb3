/**
 * What each suite needs from the servers it probes, checked against their capability reports
 * (capabilities.ts) before the suite starts. A need the suite cannot do without is a usage error
 * that names the capability, why the suite needs it and what to do; a workload family that needs a
 * missing capability is left out of the trace, and the report says which and why — the suite never
 * runs requests it knows will fail and then ends INCONCLUSIVE over them.
 */
import { UserError } from '../core/errors.js';
import { supportOf, type CapabilityName, type CapabilityReport } from './capabilities.js';

/** Workload families that can be left out (the eviction family is the suite's core: never). */
export type OptionalFamily = 'cancel' | 'prompt-logprobs' | 'parallel';

interface Need {
  capability: CapabilityName;
  why: string;
  /** Without it the suite cannot run; otherwise the family it serves is left out. */
  family?: OptionalFamily;
  /** Also asked of the reference (it runs the same requests alone). */
  reference?: boolean;
}

const GENERATE: Need = {
  capability: 'token-id-generation',
  why: 'every suite sends token-id prompts greedily and compares token ids, with log-probabilities to tell a near-tie from a corrupt token',
  reference: true,
};

const WORKLOAD_NEEDS: readonly Need[] = [
  GENERATE,
  { capability: 'streaming', why: 'it streams a request and disconnects mid-decode', family: 'cancel' },
  {
    capability: 'prompt-logprobs',
    why: 'it compares prompt_logprobs with the request alone',
    family: 'prompt-logprobs',
    reference: true,
  },
  {
    capability: 'parallel-sampling',
    why: 'it sends one request with n = 3 choices',
    family: 'parallel',
    reference: true,
  },
];

const HINT: Partial<Record<CapabilityName, string>> = {
  'token-id-generation':
    'the probe needs a server that takes token-id prompts and returns token ids with logprobs: vLLM, SGLang (found by GET /model_info), trtllm-serve with the fields it accepts, or faultline engine serve; Ollama and TGI take text prompts only',
};

function refuse(suite: string, who: string, url: string, r: CapabilityReport, need: Need): never {
  const c = supportOf(r, need.capability)!;
  throw new UserError(
    `the ${suite} suite needs ${need.capability} from the ${who} at ${url}, which ${c.detail}`,
    {
      hint: `${need.why}; ${HINT[need.capability] ?? 'see the capability report with --format json'}`,
    },
  );
}

const missing = (r: CapabilityReport | undefined, n: CapabilityName) =>
  r !== undefined && supportOf(r, n)?.support === 'no';

export interface Servers {
  target: { url: string; report: CapabilityReport };
  reference?: { url: string; report: CapabilityReport };
}

/** Window-crossing, short and file suites: token-id generation on both sides, or a usage error. */
export function requireForPromptSuites(suite: string, s: Servers): void {
  if (missing(s.target.report, GENERATE.capability))
    refuse(suite, 'target', s.target.url, s.target.report, GENERATE);
  if (s.reference && missing(s.reference.report, GENERATE.capability))
    refuse(suite, 'reference', s.reference.url, s.reference.report, GENERATE);
  // the reference scores the target's tokens where the two part: llama-server cannot score a given text
  if (s.reference?.report.api === 'llama-server')
    throw new UserError(
      `the reference at ${s.reference.url} is a llama-server, which cannot score another server's tokens (its /v1/completions has no prompt logprobs and no echo)`,
      {
        hint: 'make llama-server the --target, and point --reference at a server that scores prompts (faultline engine serve, with --runtime llama.cpp for the same engine, or vLLM)',
      },
    );
}

/** The workload suite: a usage error for what it cannot do without; the families to leave out, with why. */
export function workloadFamilies(s: Servers): { leftOut: OptionalFamily[]; notes: string[] } {
  for (const [who, side] of [
    ['target', s.target],
    ['reference', s.reference],
  ] as const)
    if (side && side.report.api !== 'openai') {
      const engine = side.report.api === 'sglang' ? 'an SGLang server' : 'a llama-server';
      const route = side.report.api === 'sglang' ? '/generate' : '/completion';
      throw new UserError(
        `the workload suite sends vLLM's OpenAI requests, and the ${who} at ${side.url} is ${engine} (its /v1/completions has no token ids)`,
        {
          hint: `probe ${engine} with --suite window-crossing (it goes through ${route}), or run the workload suite against vLLM or faultline engine serve`,
        },
      );
    }
  const leftOut: OptionalFamily[] = [];
  const notes: string[] = [];
  for (const need of WORKLOAD_NEEDS) {
    const sides = [
      ['target', s.target] as const,
      ...(need.reference && s.reference ? [['reference', s.reference] as const] : []),
    ];
    const lacking = sides.find(([, side]) => missing(side.report, need.capability));
    if (!lacking) continue;
    const [who, side] = lacking;
    if (!need.family) refuse('workload', who, side.url, side.report, need);
    leftOut.push(need.family);
    notes.push(
      `the ${need.family} family is left out (${need.why}): the ${who} has no ${need.capability} (${supportOf(side.report, need.capability)!.detail})`,
    );
  }
  return { leftOut, notes };
}

/** A replayed trace must not hold requests the servers cannot answer. */
export function requireForReplay(
  uses: ReadonlySet<OptionalFamily>,
  leftOut: readonly OptionalFamily[],
  notes: readonly string[],
): void {
  const lacking = leftOut.filter((f) => uses.has(f));
  if (lacking.length === 0) return;
  throw new UserError(
    `the replayed trace has ${lacking.join(' and ')} requests the servers cannot answer: ${notes.filter((n) => lacking.some((f) => n.startsWith(`the ${f} family`))).join('; ')}`,
    {
      hint: 'replay the trace on servers like the ones it was recorded on, or record a new one with --suite workload',
    },
  );
}
