/**
 * The adaptive half of a matrix run: what it has learned so far (levels that never launch,
 * maskers) and the interactions it has localized, verified and generalized. run.ts calls it
 * after each batch of cells; it decides which failing cells to localize (fewest non-reference
 * levels first, none already explained by an interaction found, `localize.max_faults` at most)
 * and runs every localization cell through the CellRunner with the PASS rounds its purpose needs.
 */
import type { CellResult } from './cell-result.js';
import type { CellRunner } from './cells.js';
import { maxPassRounds, passRounds, type Purpose } from './confirmation.js';
import { ConstraintSet, type Constraint } from './constraints.js';
import { generalizeLevels, type LevelSet } from './generalize.js';
import { learnLaunchConstraints, type LearnedLaunchConstraint } from './launch-learning.js';
import { localizeFailure, type LocalizeEnv, type Localization, type Verdict } from './localize.js';
import type { MatrixPlan } from './plan-compile.js';
import { hasRequestScope } from './request-variants.js';
import { configKey, type Config } from './space.js';
import { holdsInteraction, learnMaskers, maskerOf, type FoundInteraction, type Masker } from './tested-tuples.js';

export interface LocalizedFault {
  /** The failing cell the search started from. */
  source: string;
  result: Localization;
  /** Per factor of a found interaction: the levels that fail and the levels that clear it. */
  levelSets: LevelSet[];
}

export class FailureSearch {
  readonly localizations: LocalizedFault[] = [];
  /** Failing cells that contain an interaction already found: cell id → localization index. */
  readonly explained: Record<string, number> = {};
  /** Failing cells left alone because localize.max_faults was reached. */
  readonly unexamined: string[] = [];
  learned: LearnedLaunchConstraint[] = [];
  learnedMaskers: { factor: number; level: number }[] = [];
  private readonly examined = new Set<string>();

  constructor(
    private readonly plan: MatrixPlan,
    private readonly runner: CellRunner,
    private readonly slots: number,
    private readonly onLocalize: (cell: CellResult) => void,
  ) {}

  /** The plan's constraints and the launch constraints learned so far. */
  constraints(extra: readonly Constraint[] = []): ConstraintSet {
    return new ConstraintSet(this.plan.space, [...this.plan.constraints.constraints, ...this.learned.map((l) => l.constraint), ...extra]);
  }

  /** Interactions found and verified, as failing level sets. */
  found(): FoundInteraction[] {
    return this.localizations.flatMap((l) =>
      l.result.status === 'found' ? [l.levelSets.map((s) => ({ factor: s.factor, levels: s.failing }))] : [],
    );
  }

  /** Declared maskers and the ones learned from launches that hide an interaction found. */
  maskers(): Masker[] {
    return [...this.plan.maskers, ...this.learnedMaskers.map((a) => maskerOf(this.plan.space, a))];
  }

  /**
   * PASS rounds for a purpose. With request-scope factors every cell gets the most any purpose
   * needs: its request-level siblings ride on its launch, and topping one up later would cost a
   * launch of its own.
   */
  rounds(purpose: Purpose): number {
    return hasRequestScope(this.plan) ? maxPassRounds(this.plan.confirm) : passRounds(this.plan.confirm, purpose);
  }

  /** Factors kept at their reference level by the context check: choices and every masker's factors. */
  heldAtReference(): boolean[] {
    const held = [...this.plan.heldAtReference];
    for (const a of this.learnedMaskers) held[a.factor] = true;
    return held;
  }

  /** Re-derives what the cells so far teach: launch constraints and maskers. */
  async learn(): Promise<void> {
    const cells = await this.runner.results();
    this.learned = learnLaunchConstraints(this.plan.space, this.plan.baseline, cells, this.plan.scopes.map((s) => s === 'request'));
    this.learnedMaskers = learnMaskers(cells, this.found(), this.plan.baseline);
  }

  /** Localizes the failing cells among `cells` that no interaction found so far explains. */
  async localizeFailures(cells: readonly CellResult[]): Promise<void> {
    const reference = this.plan.baseline;
    const nonReference = (c: Config) => c.filter((v, f) => v !== reference[f]).length;
    const failing = cells
      .filter((c) => c.outcome === 'corrupt' && !this.examined.has(c.id))
      .sort((a, b) => nonReference(a.config) - nonReference(b.config));
    for (const cell of failing) {
      this.examined.add(cell.id);
      const by = this.found().findIndex((it) => holdsInteraction(cell.config, it));
      if (by >= 0) {
        this.explained[cell.id] = this.foundIndex(by);
        continue;
      }
      if (this.localizations.length >= this.plan.maxFaults) {
        this.unexamined.push(cell.id);
        continue;
      }
      this.onLocalize(cell);
      const env = this.env();
      const result = await localizeFailure(env, cell.config, reference);
      const same = this.localizations.findIndex((l) => l.result.status === 'found' && sameInteraction(l.result, result));
      if (result.status === 'found' && same >= 0) {
        this.explained[cell.id] = same;
        continue;
      }
      const levelSets =
        result.status === 'found' && result.minimal ? await generalizeLevels(env, result.interaction, result.minimal, reference) : [];
      this.localizations.push({ source: cell.id, result, levelSets });
    }
  }

  /** Index into `localizations` of the n-th found interaction. */
  private foundIndex(n: number): number {
    const indexes = this.localizations.flatMap((l, i) => (l.result.status === 'found' ? [i] : []));
    return indexes[n];
  }

  private env(): LocalizeEnv {
    // A FAIL is trusted: once any launch of a configuration corrupted, that configuration fails.
    const failed = new Set<string>();
    const verdictOf = (cell: CellResult): Verdict =>
      cell.outcome === 'corrupt' || failed.has(configKey(cell.config)) ? 'fail' : cell.outcome === 'pass' ? 'pass' : 'unknown';
    const phaseOf = { search: 'localize', verify: 'verify', generalize: 'generalize' } as const;
    return {
      constraints: this.constraints(),
      parallel: this.slots,
      choices: this.heldAtReference(),
      test: async (configs, purpose) => {
        const rounds = this.rounds(purpose);
        const cells = await this.runner.runAll(configs, phaseOf[purpose], rounds);
        for (const c of cells) if (c.outcome === 'corrupt') failed.add(configKey(c.config));
        return cells.map(verdictOf);
      },
    };
  }
}

function sameInteraction(a: Localization, b: Localization): boolean {
  const text = (l: Localization) => JSON.stringify(l.interaction);
  return text(a) === text(b);
}
