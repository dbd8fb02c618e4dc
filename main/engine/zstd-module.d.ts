// Types for zstd-codec 0.1.5 (ships none): only the one-shot API the host uses.
declare module 'zstd-codec' {
  interface ZstdSimple {
    compress(data: Uint8Array, level?: number): Uint8Array | null;
  }
  export const ZstdCodec: {
    run(ready: (zstd: { Simple: new () => ZstdSimple }) => void): void;
  };
}
