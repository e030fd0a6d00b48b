// The contract of a stage of the request path (pipeline.ts): a name, a line saying what it does (the picture
// in docs/development.md is checked against both), and how it is built from what it uses. A built stage takes
// the request in one phase (phases.ts) and gives it back in the next: a value when it has nothing to wait
// for, a promise when it has, so that the runner waits only where a stage does (pino-style: no microtask per
// stage for nothing).

/** One step of the path: `In` is the phase it needs, `Out` the phase it leaves the request in. */
export interface Stage<Deps, In, Out> {
  readonly name: string;
  /** What it does, in one line (the documented path). */
  readonly does: string;
  create(deps: Deps): (input: In) => Out | Promise<Out>;
}

/** Any stage, as the runner keeps them (method parameters are compared both ways, so every stage fits). */
export interface AnyStage<Deps> {
  readonly name: string;
  readonly does: string;
  create(deps: Deps): (input: never) => unknown;
}

/**
 * The phase `stages` leave a request of phase `In` in; `never` when one stage does not take what the one
 * before it gives (the compiler then refuses the list).
 */
export type PathOutput<Stages extends readonly unknown[], In> = Stages extends readonly [
  infer First,
  ...infer Rest,
]
  ? First extends Stage<never, infer Needs, infer Gives>
    ? In extends Needs
      ? PathOutput<Rest, Gives>
      : never
    : never
  : In;
