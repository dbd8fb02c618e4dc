/** The runtime the generated codecs (app/protocol/generated) are written against. */
export { Reader } from './reader.js';
export { Writer } from './writer.js';
export type { Init } from './init.js';
export { MalformedMessageError, UnsupportedVersionError } from './errors.js';
export { ZERO_UUID, uuidFromString, uuidToString } from './uuid.js';

/** The default of a non-nullable bytes field; never written to. */
export const EMPTY_BYTES: Uint8Array = new Uint8Array(0);
