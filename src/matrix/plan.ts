/**
 * The matrix plan as written in YAML: what to launch, which factors to vary, which
 * combinations are impossible, how hard to test. This zod schema is the single definition:
 * plan-load.ts validates with it (errors at the plan's line:col) and
 * schema/matrix-plan.schema.json is generated from it (scripts/gen-matrix-plan-schema.ts).
 */
import { z } from 'zod';
import { executorSchema } from './executors/executor-schema.js';

/** YAML writes `16`, `true`, `fp8`: a level name or argv word is their text. */
const word = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const words = z.union([word, z.array(word).min(1)]).transform((w) => (Array.isArray(w) ? w : [w]));

const jsonObject = z.record(z.string(), z.unknown());

/** What choosing one level adds to the launch. */
export const levelFragmentSchema = z
  .strictObject({
    argv: z.array(word).optional().describe('Arguments appended to launch.argv when this level is chosen.'),
    env: z.record(z.string(), word).optional().describe('Environment variables set when this level is chosen.'),
    json_args: z
      .record(z.string().regex(/^--/, 'a JSON-valued flag, e.g. --attention-config'), jsonObject)
      .optional()
      .describe('JSON-valued flags: objects from all chosen levels (and launch.json_args) are deep-merged into one argument.'),
    request: jsonObject
      .optional()
      .describe('scope: request only — fields every probe request carries at this level, e.g. { repetition_penalty: 1.3 }.'),
    gpus: z
      .number()
      .int()
      .min(1)
      .max(1024)
      .optional()
      .describe('GPUs a cell needs when this level is chosen (e.g. tensor parallel 2 → 2), instead of launch.gpus; levels of several factors that set it multiply (TP × PP).'),
  })
  .describe('What one level adds: to the launch (argv, env, json_args) or, for a request-scope factor, to each probe request (request); an empty mapping (or nothing) adds nothing.');

export const factorSchema = z
  .strictObject({
    description: z.string().optional(),
    levels: z
      .record(z.string(), levelFragmentSchema.nullable())
      .describe('Level name → fragment, in order. The first level is the safe value unless reference.levels says otherwise.'),
    scope: z
      .enum(['launch', 'request'])
      .default('launch')
      .describe(
        'launch: a server flag (each level combination is a launch); request: a request parameter (sampling penalties, logprobs, …) varied over the probe requests of one launch — it costs requests, never a launch.',
      ),
    role: z
      .enum(['suspect', 'choice'])
      .default('suspect')
      .describe(
        'suspect: a feature that is on at its other levels, so the most-enabled configurations take them. choice: alternatives with nothing "more enabled" about them (a drafter, a block size); the most-enabled configurations keep the reference level, so one alternative that happens to mask a fault cannot hide it there. Either way the covering array covers every level.',
      ),
  })
  .describe('One feature to vary.');

/** factor → level or list of levels (a conjunction of `factor ∈ levels`). */
const conditionSchema = z.record(z.string(), words);

export const constraintSchema = z
  .strictObject({
    forbid: conditionSchema.optional().describe('These levels never occur together.'),
    if: conditionSchema.optional().describe('Premise of an implication.'),
    then: conditionSchema.optional().describe('Must hold whenever `if` holds.'),
    why: z.string().optional(),
  })
  .refine((c) => (c.forbid !== undefined) !== (c.if !== undefined || c.then !== undefined), {
    message: 'a constraint is either `forbid: {...}` or `if: {...}` with `then: {...}`',
  })
  .refine((c) => (c.if === undefined) === (c.then === undefined), { message: '`if` needs `then`, and `then` needs `if`' })
  .describe('PICT-like constraint: a forbidden combination, or an implication.');

export const planSchema = z
  .strictObject({
    launch: z
      .strictObject({
        argv: z
          .array(word)
          .min(1)
          .describe('The server command as an argv array (no shell). Placeholders: {port}, {host}, {cell_dir}, {run_dir}, {faultline_root} (the directory of the faultline package running the plan: its bin/, models/).'),
        env: z.record(z.string(), word).optional(),
        json_args: z.record(z.string().regex(/^--/), jsonObject).optional().describe('Base values of JSON-valued flags.'),
        cwd: z.string().optional(),
        health: z.string().regex(/^\//, 'a path starting with /').default('/health'),
        ready_timeout_s: z.number().positive().default(300),
        stop_timeout_s: z.number().positive().default(10),
        gpus: z.number().int().min(1).max(1024).default(1).describe('GPUs one cell needs unless its levels say otherwise.'),
      })
      .describe('How to start one server.'),
    reference: z
      .strictObject({
        levels: z.record(z.string(), word).optional().describe('The trusted configuration; unnamed factors take their first level.'),
        url: z.url().optional().describe('A trusted server already running; nothing is launched for the reference.'),
        keep_alive: z
          .boolean()
          .default(false)
          .describe(
            "Keep the launched reference up for the whole run so it cross-scores every cell's divergent continuations (more sensitive; needs room for one more server).",
          ),
        gpus: word.optional().describe('CUDA_VISIBLE_DEVICES of the kept-alive reference (a slot of its own).'),
      })
      .default({ keep_alive: false })
      .describe('The trusted configuration whose outputs every cell is compared with; its levels are the safe values.'),
    factors: z.record(z.string(), factorSchema).describe('Feature name → levels.'),
    constraints: z.array(constraintSchema).default([]),
    strength: z.number().int().min(2).max(4).default(3).describe('t of the t-way covering array.'),
    seed: z.number().int().min(0).default(1),
    confirm: z
      .union([z.literal('auto'), z.number().int().min(0).max(10)])
      .default('auto')
      .describe(
        'Re-probes of a PASS on the same server before it is believed (a FAIL is trusted). auto: as many as a sequential test on miss_rate needs for why the cell runs (more during localization, usually none for covering rows); a number: that many for every PASS.',
      ),
    miss_rate: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.05)
      .describe(
        "Chance that one probe round of a corrupt server says PASS (confirm: auto). The default is the probe's own error rate: a server corrupting at least target_rate of its requests passes a round with probability ≤ 5 %.",
      ),
    coverage: z
      .strictObject({
        after_found: z
          .enum(['stop', 'cover'])
          .default('stop')
          .describe(
            'stop: once a most-enabled launch failed and its interaction is verified, do not run the covering array (the report lists the t-way combinations left untested); cover: run it anyway, rows avoiding the interactions found, to look for more.',
          ),
        rounds: z
          .number()
          .int()
          .min(0)
          .max(10)
          .default(3)
          .describe('Extra covering rounds for t-way combinations whose launches gave no verdict (a level that never launches becomes a learned constraint).'),
        shrink_effort: z.number().positive().max(100).default(1).describe('Multiplies the covering-array shrinking budget (1: about a second of one core).'),
        maskers: z
          .array(z.record(z.string(), words))
          .default([])
          .describe(
            'Levels known to hide other faults (e.g. a drafter that rarely drafts deep): a PASS with one present tests only the combinations that include it; the others get launches without it.',
          ),
      })
      .default({ after_found: 'stop', rounds: 3, shrink_effort: 1, maskers: [] })
      .describe('How the t-way coverage is run and counted.'),
    probe: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'The probe options: suite (window-crossing, short or workload, or several: "workload,window-crossing"), window, requests, max_tokens, workload_rounds, … (src/matrix/README.md); checked when the plan loads.',
      ),
    executor: executorSchema,
    localize: z
      .strictObject({
        max_faults: z.number().int().min(1).max(20).default(4).describe('Failing rows to localize at most.'),
      })
      .default({ max_faults: 4 }),
  })
  .describe('faultline matrix plan');

export type PlanInput = z.input<typeof planSchema>;
export type PlanData = z.output<typeof planSchema>;

export const PLACEHOLDERS = ['port', 'host', 'cell_dir', 'run_dir', 'faultline_root'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** The JSON Schema for editors and other tools (input side: what a person writes). */
export function planJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(planSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
    title: 'faultline matrix plan',
  };
}

/** The committed file's exact text (2-space JSON and a final newline). */
export function planJsonSchemaText(): string {
  return `${JSON.stringify(planJsonSchema(), null, 2)}\n`;
}
