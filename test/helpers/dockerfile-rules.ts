/**
 * Checks for examples/container/Dockerfile, since no Docker engine runs on the machines that test
 * it: dockerfile-utils' validator (the VS Code Docker extension's; every check set to error), then
 * rules of our own in hadolint's spirit (pinned base images, COPY not ADD, no sudo or `cd` in RUN)
 * and ones that tie the recipe to this repository (the npm scripts it runs exist, the file it copies
 * between stages is where build:standalone writes it, the Node major matches package.json's
 * engines, each target's entrypoint is in exec form and is the one expected).
 */
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';

export interface RecipeExpectations {
  /** npm script names in package.json. */
  scripts: ReadonlySet<string>;
  /** Minimum Node version from package.json's engines, e.g. [20, 19]. */
  nodeMin: [number, number];
  /** Where build:standalone writes the executable, relative to the repository root. */
  standaloneOutput: string;
  /** The ENTRYPOINT each named stage (a `--target`) must have, in exec form. */
  entrypoints: Record<string, readonly string[]>;
  /** The stage `docker build` makes without --target: the last one. */
  defaultTarget: string;
}

interface Stage {
  name?: string;
  image: string;
  workdir?: string;
  instructions: Instruction[];
}

const line = (i: Instruction) => i.getRange().start.line + 1;

/** Stages with ARG defaults substituted into FROM (only `${NAME}` / `$NAME` of ARGs before the first FROM). */
function stages(text: string): Stage[] {
  const file = DockerfileParser.parse(text);
  const args = new Map(file.getInitialARGs().map((a) => [a.getProperty()?.getName() ?? '', a.getProperty()?.getValue() ?? '']));
  const out: Stage[] = [];
  for (const i of file.getInstructions()) {
    if (i.getKeyword() === 'FROM') {
      const raw = i.getArguments()[0]?.getValue() ?? '';
      const image = raw.replace(/\$\{?(\w+)\}?/g, (_, n: string) => args.get(n) ?? '');
      const as = i.getArguments()[2]?.getValue();
      out.push({ name: as, image, instructions: [] });
      continue;
    }
    const stage = out.at(-1);
    if (!stage) continue;
    stage.instructions.push(i);
    if (i.getKeyword() === 'WORKDIR') stage.workdir = i.getArguments()[0]?.getValue();
  }
  return out;
}

export function checkDockerfile(text: string, want: RecipeExpectations): string[] {
  const problems: string[] = [];
  const strict = {
    deprecatedMaintainer: ValidationSeverity.ERROR,
    directiveCasing: ValidationSeverity.ERROR,
    emptyContinuationLine: ValidationSeverity.ERROR,
    instructionCasing: ValidationSeverity.ERROR,
    instructionCmdMultiple: ValidationSeverity.ERROR,
    instructionEntrypointMultiple: ValidationSeverity.ERROR,
    instructionHealthcheckMultiple: ValidationSeverity.ERROR,
    instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
    instructionWorkdirRelative: ValidationSeverity.ERROR,
  };
  for (const d of validate(text, strict)) problems.push(`line ${d.range.start.line + 1}: ${d.message}`);

  const all = stages(text);
  const names = new Set<string>();
  for (const s of all) {
    const isStageRef = names.has(s.image);
    if (!isStageRef && !/[:@]/.test(s.image.split('/').pop() ?? '')) problems.push(`FROM ${s.image}: pin a tag or digest`);
    if (/:latest$/.test(s.image)) problems.push(`FROM ${s.image}: "latest" is not a pin`);
    const node = /^node:(\d+)\.(\d+)/.exec(s.image);
    if (s.image.startsWith('node:') && !node) problems.push(`FROM ${s.image}: pin Node to major.minor`);
    if (node) {
      const [major, minor] = [Number(node[1]), Number(node[2])];
      if (major !== want.nodeMin[0] || minor < want.nodeMin[1])
        problems.push(`FROM ${s.image}: package.json's engines need Node ${want.nodeMin.join('.')}+ of major ${want.nodeMin[0]}`);
    }
    let installed = false;
    for (const i of s.instructions) {
      const k = i.getKeyword();
      const body = i.getArgumentsContent() ?? '';
      if (k === 'ADD') problems.push(`line ${line(i)}: ADD: use COPY for local files`);
      if (k === 'RUN') {
        if (/\bsudo\b/.test(body)) problems.push(`line ${line(i)}: RUN uses sudo`);
        if (/(^|&&|;)\s*cd\s/.test(body)) problems.push(`line ${line(i)}: RUN cd: use WORKDIR`);
        if (/\bnpm ci\b/.test(body)) installed = true;
        for (const [, script] of body.matchAll(/\bnpm run ([\w:.-]+)/g)) {
          if (!want.scripts.has(script)) problems.push(`line ${line(i)}: npm run ${script}: no such script in package.json`);
          if (!installed) problems.push(`line ${line(i)}: npm run ${script} before npm ci`);
        }
      }
      if (k === 'COPY') {
        const from = (i as Copy).getFromFlag()?.getValue() ?? undefined;
        if (from !== undefined) {
          const source = all.find((x) => x.name === from);
          if (!source || !names.has(from)) problems.push(`line ${line(i)}: COPY --from=${from}: no earlier stage of that name`);
          const src = i.getArguments().filter((a) => !a.getValue().startsWith('--'))[0]?.getValue() ?? '';
          const expected = `${(source?.workdir ?? '').replace(/\/$/, '')}/${want.standaloneOutput}`;
          if (source && src !== expected) problems.push(`line ${line(i)}: COPY --from=${from} ${src}: build:standalone writes ${expected}`);
        }
      }
    }
    if (s.name) names.add(s.name);
  }

  if (all.at(-1)?.name !== want.defaultTarget) problems.push(`the last stage (the default target) is not ${want.defaultTarget}`);
  for (const [name, argv] of Object.entries(want.entrypoints)) {
    const stage = all.find((x) => x.name === name);
    if (!stage) {
      problems.push(`no stage named ${name}`);
      continue;
    }
    const entrypoints = stage.instructions.filter((i) => i.getKeyword() === 'ENTRYPOINT');
    if (entrypoints.length !== 1) problems.push(`stage ${name} has ${entrypoints.length} ENTRYPOINTs; want one`);
    for (const e of entrypoints) {
      const got = execForm(e);
      if (got === undefined) problems.push(`line ${line(e)}: ENTRYPOINT is not in exec (JSON array) form: signals would go to a shell, not to faultline`);
      else if (JSON.stringify(got) !== JSON.stringify(argv)) problems.push(`line ${line(e)}: ENTRYPOINT ${JSON.stringify(got)}; want ${JSON.stringify(argv)}`);
    }
    const copiedTo = stage.instructions.filter((i) => i.getKeyword() === 'COPY').map((i) => i.getArguments().at(-1)?.getValue());
    if (!copiedTo.includes(`/usr/local/bin/${argv[0]}`)) problems.push(`stage ${name} does not put ${argv[0]} into /usr/local/bin (on PATH in its base image)`);
  }
  return problems;
}

function execForm(entrypoint: Instruction): string[] | undefined {
  try {
    const argv: unknown = JSON.parse(entrypoint.getArgumentsContent() ?? '');
    return Array.isArray(argv) && argv.every((a) => typeof a === 'string') ? argv : undefined;
  } catch {
    return undefined;
  }
}

/** The exec-form ENTRYPOINT of a stage, as the tests run it. */
export function stageEntrypoint(text: string, stage: string): string[] | undefined {
  const e = stages(text).find((s) => s.name === stage)?.instructions.find((i) => i.getKeyword() === 'ENTRYPOINT');
  return e && execForm(e);
}
