/**
 * The Schema Registry's errors with Confluent's HTTP status and error code, so a client's error
 * handling (retry on 5xx, "subject not found" on 40401, …) works unchanged. The body a client
 * reads is `{"error_code": code, "message": message}`.
 */

export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const subjectNotFound = (s: string) => new RegistryError(404, 40401, `Subject '${s}' not found.`);
export const versionNotFound = (v: number | string) => new RegistryError(404, 40402, `Version ${v} not found.`);
export const schemaNotFound = (id?: number) => new RegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`);
export const subjectSoftDeleted = (s: string) => new RegistryError(404, 40404, `Subject '${s}' was soft deleted.Set permanent=true to delete permanently`);
export const subjectNotSoftDeleted = (s: string) => new RegistryError(404, 40405, `Subject '${s}' was not deleted first before being permanently deleted`);
export const versionSoftDeleted = (s: string, v: number) => new RegistryError(404, 40406, `Subject '${s}' Version ${v} was soft deleted.Set permanent=true to delete permanently`);
export const versionNotSoftDeleted = (s: string, v: number) => new RegistryError(404, 40407, `Subject '${s}' Version ${v} was not deleted first before being permanently deleted`);
export const subjectCompatibilityNotConfigured = (s: string) => new RegistryError(404, 40408, `Subject '${s}' does not have subject-level compatibility configured`);
export const subjectModeNotConfigured = (s: string) => new RegistryError(404, 40409, `Subject '${s}' does not have subject-level mode configured`);
export const incompatibleSchema = (problems: readonly string[]) =>
  new RegistryError(409, 409, `Schema being registered is incompatible with an earlier schema for subject; ${problems.join('; ')}`);
export const invalidSchema = (message: string) => new RegistryError(422, 42201, message);
export const invalidVersion = (v: string) =>
  new RegistryError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
export const invalidCompatibility = (level: unknown) =>
  new RegistryError(422, 42203, `Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive (got ${JSON.stringify(level)})`);
export const invalidMode = (mode: unknown) => new RegistryError(422, 42204, `Invalid mode. Valid values are READWRITE and READONLY (got ${JSON.stringify(mode)})`);
export const operationNotPermitted = (message: string) => new RegistryError(422, 42205, message);
export const referenceExists = (message: string) => new RegistryError(422, 42206, message);
export const storeError = (message: string) => new RegistryError(500, 50001, message);
export const operationTimeout = (message: string) => new RegistryError(500, 50002, message);
export const unauthorized = () => new RegistryError(401, 401, 'Unauthorized: this registry asks for HTTP basic auth with a SASL user of the cluster');
export const notFound = (path: string) => new RegistryError(404, 404, `HTTP 404 Not Found: ${path}`);
export const badRequest = (message: string) => new RegistryError(400, 400, message);
