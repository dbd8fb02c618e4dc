/** A line of a TimeLineChart: its name, colour and points in cluster time. */
export interface TimeLine {
  label: string;
  /** rgba(), so the fill can reuse it with a lower alpha. */
  colour: string;
  points: readonly { atMs: number; value: number }[];
}
