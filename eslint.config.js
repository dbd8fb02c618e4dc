// ESLint flat config. Three jobs: typescript-eslint's recommended rules (syntax only, no type
// information, so `npm run lint` stays fast; tsc does the type-checking), the 500-line file size,
// and the layer boundaries of docs/development.md#conventions, which are enforced here.
//
// Each layer gets exactly one block, built by `layer()`, with up to three rules:
//   - `import-x/no-restricted-paths` for imports of files inside the repo. It resolves each
//     import (the code writes `./x.js` for `./x.ts`, hence the extension alias below) and
//     rejects a target outside the layer's allowed folders. An import it cannot resolve would be
//     skipped silently, so `import-x/no-unresolved` is on for relative imports as a safety net.
//   - `@typescript-eslint/no-restricted-imports` for packages and Node built-ins: either an
//     allow-list (every bare specifier not on it is an error) or a deny-list. It covers
//     `import`, `import type`, `export … from` and `import x = require()`.
//   - `no-restricted-syntax` for the same package rule on dynamic `import('…')`.
// A file must match at most one layer block: in flat config a later block replaces a rule's
// options instead of merging them.
//
// To widen a boundary, edit the layer's `paths` / `packages` below and say why in its `why`.
import { builtinModules } from 'node:module';
import { defineConfig, globalIgnores } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import pluginVue from 'eslint-plugin-vue';
import house from './scripts/lint/import-cycles.js';

/** Source files ESLint lints (`.vue` through eslint-plugin-vue, its <script> through typescript-eslint). */
const SOURCES = '**/*.{ts,mts,cts,js,mjs,cjs,vue}';
const TESTS = ['**/*.test.ts', '**/test-support/**'];

/** Packages that never belong in app/: the engine is pure TypeScript, UI- and Electron-free. */
const UI_PACKAGES = ['electron', 'vue', 'vue-router', 'pinia', '@vue/*'];

/** What app/protocol may import: CRC-32C and the record-batch compression codecs. */
const PROTOCOL_PACKAGES = ['crc-32', 'fflate', 'fzstd', 'lz4js', 'snappyjs'];

/**
 * The engine's insides: the product (service, protocol, hosts) reaches the cluster only through
 * the public methods of app/core/engine.ts; the simulation's white-box tools may come here.
 */
const ENGINE_INSIDES = ['app/core/broker', 'app/core/controller', 'app/core/cluster', 'app/core/network.ts'];
const ONE_DOOR = 'The engine has one door: call the public methods of app/core/engine.ts (its types are exported there too), not the broker, controller, cluster or network modules.';

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_') && !m.includes('/'));

/** `(?:a|b)(?:/|$)`: one of the package names, alone or followed by a subpath. */
const anyOf = (names) => `(?:${names.map(escapeRegExp).join('|')})(?:/|$)`;

/**
 * A package rule: `regex` matches the import specifiers that are forbidden.
 * `only([...])` allows relative imports plus the listed packages and their subpaths
 * (`zod` allows `zod/mini`); `node:*` in the list allows Node built-ins with or without the
 * `node:` prefix. `deny([...])` forbids the listed packages and lets everything else through.
 */
function only(allowed, message) {
  const names = allowed.filter((p) => p !== 'node:*');
  const alts = [];
  if (names.length) alts.push(anyOf(names));
  if (allowed.includes('node:*')) alts.push('node:', anyOf(NODE_BUILTINS));
  const allow = alts.length ? `(?!${alts.join('|')})` : '';
  const list = allowed.length ? allowed.join(', ') : 'none';
  // A bare specifier (not ./, ../ or /) that is not on the allow-list.
  return { regex: `^(?![./])${allow}`, message: `${message} (packages allowed here: ${list})` };
}
function deny(denied, message) {
  const alts = denied.map((p) => (p.endsWith('/*') ? escapeRegExp(p.slice(0, -1)) : `${escapeRegExp(p)}(?:/|$)`));
  return { regex: `^(?:${alts.join('|')})`, message };
}

/**
 * One layer's boundary block.
 * @param {object} o
 * @param {string} o.name        label shown by `eslint --inspect-config`
 * @param {string[]} o.dirs      the layer's folders
 * @param {string[]} [o.files]   explicit file globs instead of `dirs/**` (used for test files)
 * @param {string[]} [o.ignores] files of those folders that belong to another block
 * @param {string[]} [o.paths]   repo folders the layer may import from, its own included;
 *                               omit to leave imports of repo files unrestricted
 * @param {Array<{regex: string, message: string}>} o.packages  forbidden specifiers
 * @param {string} [o.why]       appended to path errors
 * @param {boolean} [o.behindTheDoor]  also forbid the engine's insides (ENGINE_INSIDES)
 */
function layer({ name, dirs, files, ignores = [], paths, packages, why, behindTheDoor = false }) {
  const rules = {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: packages }],
    'no-restricted-syntax': [
      'error',
      ...packages.map(({ regex, message }) => ({
        // esquery's regex literal cannot contain a slash, even escaped: spell it \x2F.
        selector: `ImportExpression > Literal.source[value=/${regex.replaceAll('/', '\\x2F')}/]`,
        message,
      })),
    ],
  };
  if (paths) {
    rules['import-x/no-restricted-paths'] = [
      'error',
      {
        basePath: import.meta.dirname,
        // Everything in the repo except the allowed folders. node_modules is excepted because
        // packages are the business of the package rule above.
        zones: [
          { target: '.', from: '.', except: [...paths, 'node_modules'], message: why },
          ...(behindTheDoor ? [{ target: '.', from: ENGINE_INSIDES, message: ONE_DOOR }] : []),
        ],
      },
    ];
  }
  return {
    name: `boundaries/${name}`,
    files: files ?? dirs.map((d) => `${d}/${SOURCES}`),
    ignores,
    rules,
  };
}

export default defineConfig(
  globalIgnores(['**/node_modules/', 'dist/', 'out/', 'release/', 'coverage/', '.data/', 'e2e/artifacts/', 'scripts/fixtures/']),
  {
    name: 'project/sources',
    files: [SOURCES],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { 'import-x': importX, house },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.vue'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'], '.cjs': ['.cts', '.cjs'] },
        }),
      ],
    },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // Safety net for the path zones: a relative import that does not resolve is never checked.
      'import-x/no-unresolved': ['error', { ignore: ['^[^./]'] }],
      // No import circles, type-only imports included: a shared type gets a file of its own.
      'house/no-import-cycle': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // The code runs with noUncheckedIndexedAccess and uses `!` deliberately where an index is
      // known to be in range; the type-checker, not the linter, owns that judgement.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Files under 500 lines, every line counted (docs/development.md#conventions): a longer file
      // holds more than one responsibility, so it is split by responsibility before it lands.
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // Written by `npm run gen:protocol` from Kafka's message definitions, never by hand.
    name: 'project/generated',
    files: ['app/protocol/generated/**'],
    rules: { 'max-lines': 'off' },
  },
  ...pluginVue.configs['flat/recommended'],
  {
    name: 'project/vue',
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'], sourceType: 'module' } },
    rules: {
      // Formatting is not the linter's business here (no Prettier-vs-plugin fights).
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/attributes-order': 'off',
      // vue-tsc type-checks the script; no-undef cannot see DOM globals in .vue files.
      'no-undef': 'off',
    },
  },
  {
    name: 'project/node-scripts',
    files: ['*.{js,mjs,cjs}', 'scripts/**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },

  // ---- app/ ---------------------------------------------------------------------------------
  layer({
    // pure-rand is the one package: the seeded random the engine runs on (pure, no I/O), kept
    // beside ManualScheduler so product and simulation share both deterministic ports.
    name: 'app/core',
    dirs: ['app/core'],
    ignores: TESTS,
    paths: ['app/core', 'app/api'],
    packages: [only(['pure-rand'], 'app/core is the deterministic domain: no packages but pure-rand and no node:* (clock, scheduler, random and storage are injected).')],
    why: 'app/core imports only app/core and app/api.',
  }),
  layer({
    name: 'app/core tests',
    dirs: ['app/core'],
    files: TESTS.map((t) => `app/core/${t}`),
    paths: ['app/core', 'app/api'],
    packages: [only(['pure-rand', 'vitest', 'fast-check'], 'Tests in app/core may add vitest and fast-check, nothing else.')],
    why: 'Tests in app/core import only app/core and app/api.',
  }),
  layer({
    // The Kafka wire protocol without sockets: as pure as app/core (no node:*, no timers, so it
    // runs on byte arrays in tests and in whichever process hosts the listener), plus the
    // npm libraries a broker needs for record batches (CRC-32C, compression codecs).
    name: 'app/protocol',
    dirs: ['app/protocol'],
    ignores: TESTS,
    paths: ['app/protocol', 'app/core', 'app/api'],
    packages: [only(PROTOCOL_PACKAGES, 'app/protocol is pure: byte arrays in, byte arrays out; no node:* (sockets live in main/kafka).')],
    why: 'app/protocol imports only app/protocol, app/core and app/api.',
    behindTheDoor: true,
  }),
  layer({
    // Golden tests encode frames with kafkajs, a real client, and decode them with our codecs.
    name: 'app/protocol tests',
    dirs: ['app/protocol'],
    files: TESTS.map((t) => `app/protocol/${t}`),
    // scripts/protocol-gen: the round-trip test reads the message definitions through the
    // generator's own schema model to build values for every field of every version.
    paths: ['app/protocol', 'app/core', 'app/api', 'app/sim', 'scripts/protocol-gen'],
    packages: [only([...PROTOCOL_PACKAGES, 'vitest', 'fast-check', 'kafkajs', 'node:*'], 'Tests in app/protocol may add vitest, fast-check, kafkajs and node:*.')],
    why: 'Tests in app/protocol import only app/protocol, app/core, app/api, app/sim and scripts/protocol-gen.',
  }),
  layer({
    name: 'app/api',
    dirs: ['app/api'],
    paths: ['app/api'],
    packages: [only(['zod'], 'app/api is the contract: it imports only app/api and zod.')],
    why: 'app/api is the contract: it imports only app/api and zod.',
  }),
  layer({
    name: 'app/storage',
    dirs: ['app/storage'],
    ignores: TESTS,
    // app/protocol: the record batch codec, shared with the wire protocol.
    paths: ['app/storage', 'app/protocol', 'app/core', 'app/api'],
    packages: [
      only(
        ['better-sqlite3', 'crc-32', 'node:*', 'vitest', 'fast-check'],
        'app/storage adds only better-sqlite3, crc-32 (CRC-32C of record batches) and node:* to what app/core may use (its tests also vitest and fast-check).',
      ),
    ],
    why: 'app/storage imports only app/storage, app/protocol, app/core and app/api.',
  }),
  layer({
    // Storage tests run whole clusters on real files through the simulation.
    name: 'app/storage tests',
    dirs: ['app/storage'],
    files: TESTS.map((t) => `app/storage/${t}`),
    paths: ['app/storage', 'app/protocol', 'app/core', 'app/api', 'app/sim'],
    packages: [only(['better-sqlite3', 'crc-32', 'node:*', 'vitest', 'fast-check'], 'Tests in app/storage may add vitest, fast-check and app/sim.')],
    why: 'Tests in app/storage import only app/storage, app/protocol, app/core, app/api and app/sim (the simulation).',
  }),
  layer({
    // The app's configuration directory (connections, sealed secrets, profiles imported for an
    // external cluster): plain files of the app, never a cluster's data, so not app/storage.
    name: 'app/config-dir',
    dirs: ['app/config-dir'],
    paths: ['app/config-dir'],
    packages: [only(['node:*', 'vitest'], 'app/config-dir reads and writes files: node:* only (its tests also vitest).')],
    why: 'app/config-dir imports nothing else of the repository.',
  }),
  layer({
    // The client side of the Kafka protocol, for external clusters: network I/O beside
    // app/storage's disk I/O, never in app/core. kafkajs for what it covers; the generated codecs
    // of app/protocol for what it lacks, sent over kafkajs's own connections.
    name: 'app/kafka-client',
    dirs: ['app/kafka-client'],
    ignores: TESTS,
    paths: ['app/kafka-client', 'app/protocol', 'app/api'],
    packages: [only(['kafkajs', 'node:*'], 'app/kafka-client adds only kafkajs and node:* (sockets, TLS, certificate files).')],
    why: 'app/kafka-client imports only app/kafka-client, app/protocol (the generated codecs) and app/api.',
    behindTheDoor: true,
  }),
  layer({
    // Its tests speak to real listeners: our own (main/kafka), TLS and SASL test servers.
    name: 'app/kafka-client tests',
    dirs: ['app/kafka-client'],
    files: TESTS.map((t) => `app/kafka-client/${t}`),
    paths: ['app/kafka-client', 'app/protocol', 'app/api', 'app/sim', 'app/service', 'main/kafka', 'e2e/support'],
    packages: [only(['kafkajs', 'node:*', 'vitest', 'fast-check'], 'Tests in app/kafka-client may add vitest and fast-check.')],
    why: 'Tests in app/kafka-client import only app/kafka-client, app/protocol, app/api, app/sim, app/service, main/kafka and e2e/support.',
  }),
  layer({
    // Schemas and the Schema Registry's operations (app/schemas): parsing, compatibility and the
    // wire format of Avro, Protobuf and JSON Schema through their libraries, and the registry's
    // state as a projection of its `_schemas` topic. No I/O: the topic comes in as a port, so the
    // same code serves the registry's HTTP room and the console's decoder in the service.
    name: 'app/schemas',
    dirs: ['app/schemas'],
    paths: ['app/schemas', 'app/api'],
    packages: [only(['avsc', 'protobufjs', 'ajv', 'vitest', 'fast-check'], 'app/schemas adds only the schema libraries (avsc, protobufjs, ajv) to app/api (its tests also vitest and fast-check).')],
    why: 'app/schemas imports only app/schemas and app/api.',
  }),
  layer({
    // The product only: the simulation and its tools live in app/sim, which builds on this.
    // app/kafka-client: the Kafka driver reaches external clusters through it, as the engine
    // reaches disks through app/storage.
    name: 'app/service',
    dirs: ['app/service'],
    ignores: TESTS,
    paths: ['app/service', 'app/storage', 'app/config-dir', 'app/kafka-client', 'app/schemas', 'app/core', 'app/api'],
    packages: [
      deny(UI_PACKAGES, 'app/ never imports electron, vue or pinia.'),
      deny(['better-sqlite3'], 'app/service reaches SQLite only through app/storage.'),
    ],
    why: 'app/service imports only app/service, app/storage, app/config-dir, app/kafka-client, app/schemas, app/core and app/api (never app/sim).',
    behindTheDoor: true,
  }),
  layer({
    // Service tests run the service over a simulated cluster (app/sim/virtual-service.ts), or
    // build an engine themselves with the group records codec from app/protocol.
    name: 'app/service tests',
    dirs: ['app/service'],
    files: TESTS.map((t) => `app/service/${t}`),
    paths: ['app/service', 'app/storage', 'app/config-dir', 'app/protocol', 'app/kafka-client', 'app/schemas', 'app/core', 'app/api', 'app/sim', 'e2e/support'],
    packages: [
      deny(UI_PACKAGES, 'app/ never imports electron, vue or pinia.'),
      deny(['better-sqlite3'], 'Service tests reach SQLite only through app/storage.'),
    ],
    why: 'Tests in app/service import only app/service, app/storage, app/config-dir, app/protocol, app/kafka-client, app/schemas, app/core, app/api, app/sim and e2e/support (a served host to drive over the Kafka protocol).',
    behindTheDoor: true,
  }),
  layer({
    // The tools that prove the engine: simulation, fault run, crash host, scenarios. They build
    // on the product; nothing in the product imports them. app/protocol: an engine is built with
    // the group coordinator's record codec, generated there (and the group scenarios speak the
    // consumer protocol's bytes as clients do).
    name: 'app/sim',
    dirs: ['app/sim'],
    paths: ['app/sim', 'app/service', 'app/storage', 'app/protocol', 'app/core', 'app/api'],
    packages: [
      deny(UI_PACKAGES, 'app/ never imports electron, vue or pinia.'),
      deny(['better-sqlite3'], 'app/sim reaches SQLite only through app/storage.'),
    ],
    why: 'app/sim imports only app/sim, app/service, app/storage, app/protocol, app/core and app/api.',
  }),
  layer({
    // Files directly in app/ or in a folder no layer above names: at least keep the UI out.
    name: 'app/other',
    dirs: ['app'],
    ignores: ['app/core/**', 'app/api/**', 'app/protocol/**', 'app/storage/**', 'app/config-dir/**', 'app/kafka-client/**', 'app/schemas/**', 'app/service/**', 'app/sim/**'],
    paths: ['app'],
    packages: [deny(UI_PACKAGES, 'app/ never imports electron, vue or pinia.')],
    why: 'app/ never imports main/ or renderer/.',
  }),

  // ---- main/ --------------------------------------------------------------------------------
  // The headless host and the engine process, one room per role. Plain Node: none of them
  // imports electron or the UI. Rooms below import rooms above them, never the other way.
  layer({
    name: 'main/events',
    dirs: ['main/events'],
    ignores: TESTS,
    paths: ['main/events', 'app/api'],
    packages: [deny(UI_PACKAGES, 'main/events is plain Node: it never imports electron (nor the UI).')],
    why: 'main/events (the event stream on its way out) imports only main/events and app/api.',
  }),
  layer({
    name: 'main/kafka',
    dirs: ['main/kafka'],
    ignores: TESTS,
    paths: ['main/kafka', 'app'],
    packages: [deny(UI_PACKAGES, 'main/kafka is plain Node: it never imports electron (nor the UI).')],
    why: 'main/kafka (the Kafka listeners) imports only main/kafka and app/.',
    behindTheDoor: true,
  }),
  layer({
    name: 'main/http',
    dirs: ['main/http'],
    ignores: TESTS,
    paths: ['main/http', 'main/events', 'app/api'],
    packages: [deny(UI_PACKAGES, 'main/http is plain Node: it never imports electron (nor the UI).')],
    why: 'main/http (the HTTP host) imports only main/http, main/events and app/api: it serves any EngineService.',
  }),
  layer({
    // The Schema Registry's REST API: Confluent's resources over app/schemas' registry, its
    // `_schemas` topic reached through any EngineService (the contract), as the HTTP host is.
    name: 'main/schema-registry',
    dirs: ['main/schema-registry'],
    ignores: TESTS,
    paths: ['main/schema-registry', 'app/schemas', 'app/api'],
    packages: [deny(UI_PACKAGES, 'main/schema-registry is plain Node: it never imports electron (nor the UI).')],
    why: 'main/schema-registry imports only main/schema-registry, app/schemas and app/api: it serves any EngineService.',
  }),
  layer({
    name: 'main/engine',
    dirs: ['main/engine'],
    ignores: TESTS,
    paths: ['main/engine', 'main/kafka', 'main/events', 'app'],
    packages: [deny(UI_PACKAGES, 'main/engine is plain Node: it never imports electron (nor the UI).')],
    why: 'main/engine (the engine process) imports only main/engine, main/kafka, main/events and app/.',
    behindTheDoor: true,
  }),
  layer({
    name: 'main/cli',
    dirs: ['main/cli'],
    ignores: TESTS,
    paths: ['main/cli', 'main/engine', 'main/http', 'main/kafka', 'main/events', 'main/schema-registry', 'app'],
    packages: [deny(UI_PACKAGES, 'main/cli is plain Node: it never imports electron (nor the UI).')],
    why: 'main/cli (the headless host) imports only main/cli, main/engine, main/http, main/kafka, main/events, main/schema-registry and app/.',
    behindTheDoor: true,
  }),
  layer({
    // Host tests run real hosts: an engine opened in process behind the HTTP host or the listeners.
    name: 'main host tests',
    dirs: ['main/cli', 'main/http', 'main/kafka', 'main/engine', 'main/events', 'main/schema-registry'],
    files: ['main/cli', 'main/http', 'main/kafka', 'main/engine', 'main/events', 'main/schema-registry'].flatMap((d) => TESTS.map((t) => `${d}/${t}`)),
    paths: ['main/cli', 'main/engine', 'main/http', 'main/kafka', 'main/events', 'main/schema-registry', 'app'],
    packages: [deny(UI_PACKAGES, 'The host tests are plain Node: no electron (nor the UI).')],
    why: 'Host tests import only main/cli, main/engine, main/http, main/kafka, main/events, main/schema-registry and app/.',
  }),
  layer({
    name: 'main/preload',
    dirs: ['main/preload'],
    paths: ['main/preload', 'app/api'],
    packages: [only(['electron'], 'main/preload is a thin sandboxed bridge: electron and the contract only.')],
    why: 'main/preload imports only electron and app/api.',
  }),
  layer({
    name: 'main/electron',
    dirs: ['main/electron'],
    paths: ['main', 'app'],
    packages: [deny(['vue', 'vue-router', 'pinia', '@vue/*'], 'The Electron main process does not import the UI.')],
    why: 'main/electron never imports renderer/ (it loads the built UI over app://).',
    behindTheDoor: true,
  }),

  // ---- renderer/ ----------------------------------------------------------------------------
  layer({
    name: 'renderer',
    dirs: ['renderer'],
    ignores: TESTS,
    paths: ['renderer', 'app/api'],
    packages: [
      deny(['electron', 'better-sqlite3'], 'The renderer reaches the engine only through its Transport.'),
      { regex: `^(?:node:|${anyOf(NODE_BUILTINS)})`, message: 'The renderer is sandboxed web code: no Node built-ins.' },
    ],
    why: 'renderer/ imports only app/api from outside renderer/ and talks to the engine through a Transport.',
  }),
  layer({
    // Store tests run the renderer's stores in Node against a real host process (e2e/support).
    name: 'renderer tests',
    dirs: ['renderer'],
    files: TESTS.map((t) => `renderer/${t}`),
    paths: ['renderer', 'app/api', 'e2e/support'],
    packages: [deny(['electron', 'better-sqlite3'], 'Store tests reach the engine through a real host, like the console.')],
    why: 'Store tests import only renderer/, app/api and the e2e host harness.',
  }),
);
