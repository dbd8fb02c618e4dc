/**
 * Exhaustive small-scope exploration of the real engine (app/sim/explore/).
 *
 *   npm run explore -- --brokers 3 --depth N [--records R] [--faults F] [--min-isr M]
 *                      [--unclean] [--elr] [--security] [--max-states S] [--bail]
 *   npm run explore -- --brokers 3 --replay '<trace as JSON>'    replay one path, state by state
 *
 * Prints the states explored per depth, then every violation with the trace that reaches it and
 * the command that replays it; losses Kafka allows (unclean election, power loss of the whole ISR)
 * are listed apart. Exits 1 when an invariant broke. Bounded by --depth and --max-states.
 * --elr turns on eligible leader replicas (KIP-966) and starts at the min-ISR edge (world.ts),
 * adding the ELR invariants (invariants.ts); its min ISR defaults to 2.
 * --security adds ACL and SCRAM credential changes, a metadata snapshot and a controller failover,
 * with the invariant that every broker holds what the controller committed (security-scope.ts).
 *
 *   npm run explore -- --txn commit|abort [--from markers|end-txn] --depth N [--faults F] [--max-states S]
 *   npm run explore -- --txn commit --from markers --replay '<trace as JSON>'
 *
 * --txn explores one transaction across two partitions and a coordinator failover instead
 * (txn-world.ts, txn-explore.ts): from its markers sent (default) or from the EndTxn request.
 */
import { parseArgs } from 'node:util';
import { explore, replay, type Finding } from '../app/sim/explore/explorer.js';
import type { ExploreScope } from '../app/sim/explore/world.js';
import { exploreTxn, replayTxn, settleAndCheck } from '../app/sim/explore/txn-explore.js';
import type { TxnScope } from '../app/sim/explore/txn-world.js';

function int(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, got '${text}'`);
    process.exit(2);
  }
  return n;
}

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: '3' },
    depth: { type: 'string', default: '6' },
    records: { type: 'string' },
    faults: { type: 'string' },
    'min-isr': { type: 'string' },
    unclean: { type: 'boolean', default: false },
    elr: { type: 'boolean', default: false },
    security: { type: 'boolean', default: false },
    'max-states': { type: 'string' },
    bail: { type: 'boolean', default: false },
    replay: { type: 'string' },
    txn: { type: 'string' },
    from: { type: 'string', default: 'markers' },
  },
  strict: true,
});

if (values.txn !== undefined) {
  if ((values.txn !== 'commit' && values.txn !== 'abort') || (values.from !== 'markers' && values.from !== 'end-txn')) {
    console.error('--txn must be commit or abort, --from markers or end-txn');
    process.exit(2);
  }
  const txnScope: TxnScope = { result: values.txn === 'commit' ? 'COMMIT' : 'ABORT', start: values.from, faults: int('faults', values.faults, 1) };
  const txnArgs = `--txn ${values.txn} --from ${txnScope.start} --faults ${txnScope.faults}`;
  if (values.replay !== undefined) {
    const trace = JSON.parse(values.replay) as string[];
    const { world, messages, failedAt } = replayTxn(txnScope, trace);
    trace.forEach((move, i) => console.log(`${String(i + 1).padStart(3)}. ${move}${i === failedAt ? '   <- invariant broken here' : ''}`));
    const settled = failedAt < 0 ? settleAndCheck(world) : { messages: [], failedOver: false };
    for (const m of [...messages, ...settled.messages]) console.log(`violation: ${m}`);
    process.exit(messages.length + settled.messages.length > 0 ? 1 : 0);
  }
  const depth = int('depth', values.depth, 5);
  const maxStates = values['max-states'] === undefined ? undefined : int('max-states', values['max-states'], 0);
  const started = Date.now();
  const r = exploreTxn({ ...txnScope, depth, ...(maxStates !== undefined ? { maxStates } : {}) });
  console.log(`${r.states} distinct states (${r.failovers} settled through the successor coordinator), ${r.transitions} transitions, depth ${r.depthReached}${r.complete ? '' : ' (stopped early)'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const v of r.violations) {
    console.log(`\nVIOLATION: ${v.messages.join('; ')}`);
    v.trace.forEach((m, i) => console.log(`  ${String(i + 1).padStart(3)}. ${m}`));
    console.log(`  replay: npm run explore -- ${txnArgs} --replay '${JSON.stringify(v.trace)}'`);
  }
  console.log(r.violations.length === 0 ? 'no invariant broken' : `${r.violations.length} violation(s)`);
  process.exit(r.violations.length === 0 ? 0 : 1);
}

const brokers = int('brokers', values.brokers, 3);
if (brokers < 2 || brokers > 3) {
  console.error('--brokers must be 2 or 3 (the small scope)');
  process.exit(2);
}
const scope: ExploreScope = {
  brokers,
  records: Math.min(3, int('records', values.records, brokers === 2 ? 2 : 1)),
  faults: int('faults', values.faults, 1),
  minInsyncReplicas: int('min-isr', values['min-isr'], brokers === 3 || values.elr ? 2 : 1),
  uncleanLeaderElectionEnable: values.unclean ?? false,
  ...(values.elr ? { elr: true } : {}),
  ...(values.security ? { security: true } : {}),
};
const scopeArgs = `--brokers ${scope.brokers} --records ${scope.records} --faults ${scope.faults} --min-isr ${scope.minInsyncReplicas}${scope.uncleanLeaderElectionEnable ? ' --unclean' : ''}${scope.elr ? ' --elr' : ''}${scope.security ? ' --security' : ''}`;

if (values.replay !== undefined) {
  const trace = JSON.parse(values.replay) as string[];
  const { world, checker, failedAt } = replay(scope, trace);
  trace.forEach((move, i) => console.log(`${String(i + 1).padStart(3)}. ${move}${i === failedAt ? '   <- invariant broken here' : ''}`));
  const p = world.sim.partition('t', 0);
  console.log(`controller: leader ${p.leader}, epoch ${p.leaderEpoch}, ISR [${p.isr}]; logs: ${p.replicaStates.map((r) => `${r.brokerId}: LEO ${r.logEndOffset} HW ${r.highWatermark}`).join('; ')}`);
  console.log(`acknowledged: ${world.acked.map((a) => `${a.value}@${a.offset}`).join(', ') || 'none'}`);
  for (const v of checker.violations) console.log(`violation: ${v}`);
  for (const e of checker.excused) console.log(`allowed loss: ${e}`);
  process.exit(checker.violations.length > 0 ? 1 : 0);
}

const depth = int('depth', values.depth, 6);
const maxStates = values['max-states'] === undefined ? undefined : int('max-states', values['max-states'], 0);
const started = Date.now();
console.log(`explore: ${scopeArgs}, depth ${depth}${maxStates !== undefined ? `, at most ${maxStates} states` : ''}`);
const result = explore({
  ...scope,
  depth,
  bail: values.bail ?? false,
  ...(maxStates !== undefined ? { maxStates } : {}),
  onProgress: (d, states) => console.log(`  depth ${d}: ${states} states (${((Date.now() - started) / 1000).toFixed(1)} s)`),
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`${result.states} distinct states, ${result.transitions} transitions, depth ${result.depthReached}${result.complete ? '' : ' (stopped early)'} in ${seconds} s`);

const show = (f: Finding, what: string): void => {
  console.log(`\n${what}: ${f.messages.join('; ')}`);
  f.trace.forEach((m, i) => console.log(`  ${String(i + 1).padStart(3)}. ${m}`));
  console.log(`  replay: npm run explore -- ${scopeArgs} --replay '${JSON.stringify(f.trace)}'`);
};
for (const e of result.excused) show(e, 'allowed loss');
for (const v of result.violations) show(v, 'VIOLATION');
console.log(result.violations.length === 0 ? 'no invariant broken' : `${result.violations.length} violation(s)`);
process.exit(result.violations.length === 0 ? 0 : 1);
