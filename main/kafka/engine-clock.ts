/** What a host gives the listeners to run engine calls on its clock. */
export interface EngineClock {
  /** Bring the engine up to real time (runs what is due). */
  sync(): void;
  /** Re-arm the clock for work scheduled outside a step. */
  wake(): void;
  /** Run engine work as one step (one storage transaction). */
  step(fn: () => void): void;
}
