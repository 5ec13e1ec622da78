/**
 * Work done by the text scanners, counted in steps (one per character looked at, and the window
 * characters handed to a bounded pattern), so a test can state a bound in steps rather than in
 * milliseconds: on any input, the count must stay within a fixed multiple of the input's length.
 */
export class StepMeter {
  steps = 0;
  add(n: number): void {
    this.steps += n;
  }
}
