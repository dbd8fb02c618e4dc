/**
 * Splits a byte stream into Kafka frames: `int32 size` then `size` bytes (docs/protocol.html
 * "Network"). Invariants:
 *   - memory held is at most what was received and not yet handed out: a size prefix is never
 *     trusted to allocate ahead of the bytes (chunks are joined only once a frame is complete);
 *   - a size below 0 or above `maxFrameBytes` (Kafka's `socket.request.max.bytes`, default
 *     104857600) makes the reader fail for good, as Kafka's InvalidReceiveException closes the
 *     connection; once failed, input is ignored;
 *   - push() never throws.
 */

export type FrameReadResult = { frames: Uint8Array[] } | { frames: Uint8Array[]; error: string };

export class FrameReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private failed: string | null = null;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes received and not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** Feeds `chunk`; returns the frames it completed (payloads without the size prefix). */
  push(chunk: Uint8Array): FrameReadResult {
    if (this.failed !== null) return { frames: [], error: this.failed };
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: Uint8Array[] = [];
    while (this.buffered >= 4) {
      const size = this.peekSize();
      if (size < 0 || size > this.maxFrameBytes) {
        this.failed = `invalid frame size ${size} (socket.request.max.bytes is ${this.maxFrameBytes})`;
        this.chunks = [];
        this.buffered = 0;
        return { frames, error: this.failed };
      }
      if (this.buffered < 4 + size) break;
      frames.push(this.take(4 + size).subarray(4));
    }
    return { frames };
  }

  private peekSize(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return new DataView(first.buffer, first.byteOffset, 4).getInt32(0);
    const head = this.take(4);
    this.chunks.unshift(head);
    this.buffered += 4;
    return new DataView(head.buffer, head.byteOffset, 4).getInt32(0);
  }

  /** Removes the first `n` buffered bytes; a view when they lie in one chunk. */
  private take(n: number): Uint8Array {
    const first = this.chunks[0]!;
    this.buffered -= n;
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[0]!;
      const part = Math.min(c.length, n - at);
      out.set(c.subarray(0, part), at);
      at += part;
      if (part === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(part);
    }
    return out;
  }
}
