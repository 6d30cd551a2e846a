/**
 * perfgate's exit codes, one policy for `perfgate ab`, `perfgate compare` and the GitHub Action
 * (which fails its step on any non-zero code): 0 ok; 1 an error, an incomplete run, or a gate
 * (`--fail-on-regression`) that compared nothing or a file that is not complete; 2 a usage error
 * (a malformed or refused flag or input value); 3 a gate that found a regression; 130 interrupted.
 */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  regression: 3,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
