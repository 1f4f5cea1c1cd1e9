/**
 * Per-version results of the interop suite: what each scenario did in each direction, plus the
 * observed differences. Written to `test/interop/results/<version>.json` at the end of a version's file;
 * `scripts/interop-matrix.mjs` renders those files into COMPATIBILITY.md and checks it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Who acts: `java-to-ts` = Java holds or acts, redisson-ts is excluded or woken; `ts-to-java` the reverse. */
export type Direction = 'java-to-ts' | 'ts-to-java';
export const DIRECTIONS: readonly Direction[] = ['java-to-ts', 'ts-to-java'];

/** `fail` also covers "did not finish" (timeout, earlier hook failure). */
export type Outcome = 'pass' | 'fail' | 'n/a';

export interface Cell {
  outcome: Outcome;
  /** An observed difference or a remark, rendered as a footnote. */
  note?: string;
}

export interface ScenarioResult {
  readonly id: string;
  readonly primitive: string;
  readonly title: string;
  readonly cells: Record<Direction, Cell>;
}

export interface VersionResults {
  readonly redisson: string;
  readonly deployment: string;
  readonly scenarios: ScenarioResult[];
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const RESULTS_DIR = path.join(ROOT, 'test', 'interop', 'results');
const MATRIX_SCRIPT = path.join(ROOT, 'scripts', 'interop-matrix.mjs');

/** Collects the outcome of every registered scenario of one Redisson version. */
export class ResultsRecorder {
  readonly #scenarios = new Map<string, ScenarioResult>();

  constructor(
    readonly version: string,
    readonly deployment: string,
  ) {}

  /** Registers a scenario; every cell starts as `fail` until its test passes. */
  register(id: string, primitive: string, title: string): void {
    if (this.#scenarios.has(id)) throw new Error(`scenario ${id} registered twice`);
    this.#scenarios.set(id, {
      id,
      primitive,
      title,
      cells: { 'java-to-ts': { outcome: 'fail' }, 'ts-to-java': { outcome: 'fail' } },
    });
  }

  set(id: string, direction: Direction, outcome: Outcome): void {
    this.#cell(id, direction).outcome = outcome;
  }

  /** Attaches a footnote to a cell (kept whatever the outcome). */
  note(id: string, direction: Direction, note: string): void {
    this.#cell(id, direction).note = note;
  }

  toJSON(): VersionResults {
    return { redisson: this.version, deployment: this.deployment, scenarios: [...this.#scenarios.values()] };
  }

  /** Writes `results/<version>.json` (atomically; untouched when the content is the same). */
  write(): string {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `${this.version}.json`);
    const text = `${JSON.stringify(this.toJSON(), null, 2)}\n`;
    if (existsSync(file) && readFileSync(file, 'utf8') === text) return file;
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
    return file;
  }

  #cell(id: string, direction: Direction): Cell {
    const scenario = this.#scenarios.get(id);
    if (!scenario) throw new Error(`unknown scenario ${id}`);
    return scenario.cells[direction];
  }
}

/** Runs `scripts/interop-matrix.mjs --check`: the matrix in COMPATIBILITY.md equals the results files. */
export function checkMatrix(): { ok: boolean; output: string } {
  const r = spawnSync(process.execPath, [MATRIX_SCRIPT, '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}
