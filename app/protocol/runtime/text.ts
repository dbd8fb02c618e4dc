/**
 * UTF-8 for protocol strings. TextEncoder and TextDecoder are globals of every runtime we run in
 * (Node, Electron, browsers) but belong to no ES lib typing, and app/protocol compiles without
 * Node or DOM types; so they are reached through globalThis with the two methods we use.
 *
 * Decoding replaces malformed sequences with U+FFFD, as Java's `new String(bytes, UTF_8)` does
 * in Kafka's readers. Short ASCII strings (topic names, client ids) take a loop that is several
 * times faster than a TextDecoder call for them.
 */
interface Utf8Encoder {
  encode(input: string): Uint8Array;
}
interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
const platform = globalThis as unknown as {
  TextEncoder: new () => Utf8Encoder;
  TextDecoder: new (label: string) => Utf8Decoder;
};
const encoder = new platform.TextEncoder();
const decoder = new platform.TextDecoder('utf-8');

const SHORT = 64;

/** The UTF-8 bytes of `s`. */
export function utf8Encode(s: string): Uint8Array {
  if (s.length <= SHORT) {
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return encoder.encode(s);
      out[i] = c;
    }
    return out;
  }
  return encoder.encode(s);
}

/** `buf[start, end)` decoded as UTF-8. */
export function utf8Decode(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      if (c >= 0x80) return decoder.decode(buf.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return decoder.decode(buf.subarray(start, end));
}
