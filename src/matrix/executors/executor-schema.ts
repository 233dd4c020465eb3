/**
 * The plan's `executor:` mapping, one shape per kind: where the cells' servers run. Part of the
 * plan schema (plan.ts); kept here beside the executors it configures.
 */
import { z } from 'zod';

const word = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const stringMap = z.record(z.string(), word);

/** Slurm's --time formats: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
const SLURM_TIME = /^(\d+|\d+:\d{2}|\d+:\d{2}:\d{2}|\d+-\d+|\d+-\d+:\d{2}|\d+-\d+:\d{2}:\d{2})$/;

export const localExecutorSchema = z.strictObject({
  kind: z.literal('local').default('local'),
  parallel: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .describe('Servers at once (default: one per GPU when gpus are listed).'),
  gpus: z
    .array(word)
    .min(1)
    .optional()
    .describe(
      "The GPU ids of this node, e.g. [0, 1, 2, 3]: each cell gets as many as it needs (launch.gpus, or its levels' gpus) through CUDA_VISIBLE_DEVICES, never one another cell holds.",
    ),
});

export const slurmExecutorSchema = z.strictObject({
  kind: z.literal('slurm'),
  parallel: z
    .number()
    .int()
    .min(1)
    .max(256)
    .default(4)
    .describe('Jobs of the run in the queue at once (submitted and not ended).'),
  partition: z
    .string()
    .min(1)
    .optional()
    .describe("sbatch --partition (default: the cluster's default partition)."),
  time: z
    .string()
    .regex(SLURM_TIME, 'a Slurm time limit: minutes, MM:SS, HH:MM:SS or D-HH:MM:SS')
    .describe("sbatch --time of each cell's job: also how long a job of a killed faultline can outlive it."),
  account: z.string().min(1).optional().describe('sbatch --account.'),
  gres_per_gpu: z
    .string()
    .min(1)
    .nullable()
    .default('gpu')
    .describe(
      'The gres one GPU is asked for as ("gpu", "gpu:h100"): a cell of N GPUs gets --gres=<this>:N. null asks for no GPUs.',
    ),
  sbatch_args: z
    .array(word)
    .default([])
    .describe('More sbatch options, one per entry, e.g. [--qos=high, --constraint=h100].'),
  poll_s: z
    .number()
    .positive()
    .max(600)
    .default(5)
    .describe('Seconds between squeue polls (one call for all jobs of the run).'),
  pending_timeout_s: z
    .number()
    .positive()
    .default(1800)
    .describe('A job PENDING longer than this is cancelled and its cell recorded as not-scheduled.'),
  host: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Where the cell's server listens and faultline connects ({host}); default: the node's name as Slurm knows it. 127.0.0.1 for a cluster on this machine.",
    ),
});

const toleration = z.strictObject({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().optional(),
});

export const kubernetesExecutorSchema = z.strictObject({
  kind: z.literal('kubernetes'),
  parallel: z.number().int().min(1).max(256).default(4).describe('Jobs of the run at once.'),
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'a Kubernetes namespace name')
    .describe('Namespace of every object of the run.'),
  image: z.string().min(1).describe('The serving image; launch.argv is its command.'),
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(8000)
    .describe('The container port the server listens on ({port}).'),
  resources: z
    .strictObject({ requests: stringMap.optional(), limits: stringMap.optional() })
    .default({})
    .describe("Container resources; the cell's GPU count is added as gpu_resource in requests and limits."),
  gpu_resource: z.string().default('nvidia.com/gpu').describe('The extended resource one GPU is.'),
  node_selector: stringMap.default({}).describe('e.g. {nvidia.com/gpu.product: NVIDIA-B200}.'),
  tolerations: z.array(toleration).default([]),
  queue: z
    .string()
    .min(1)
    .optional()
    .describe('Kueue LocalQueue: the Job gets the kueue.x-k8s.io/queue-name label and waits for quota.'),
  service_account: z.string().min(1).optional(),
  image_pull_secrets: z.array(z.string().min(1)).default([]),
  active_deadline_s: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Job activeDeadlineSeconds: a cell running longer is recorded as time-limit.'),
  pending_timeout_s: z
    .number()
    .positive()
    .default(1800)
    .describe('A pod not running after this is deleted and its cell recorded as not-scheduled.'),
  poll_s: z.number().positive().max(600).default(5),
  context: z.string().min(1).optional().describe('kubeconfig context (default: the current one).'),
});

export const executorSchema = z
  .discriminatedUnion('kind', [localExecutorSchema, slurmExecutorSchema, kubernetesExecutorSchema])
  .default({ kind: 'local', parallel: 1 })
  .describe(
    'Where cells run: local processes (kind: local, the default), Slurm jobs (kind: slurm) or Kubernetes Jobs (kind: kubernetes).',
  );

export type ExecutorData = z.output<typeof executorSchema>;
export type SlurmExecutorData = z.output<typeof slurmExecutorSchema>;
export type KubernetesExecutorData = z.output<typeof kubernetesExecutorSchema>;
