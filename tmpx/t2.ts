import { explore } from '../app/sim/explore/explorer.js';
for (const depth of [4, 6, 7]) {
const t0 = performance.now();
const r = explore({ brokers: 2, records: 2, faults: 1, minInsyncReplicas: 1, uncleanLeaderElectionEnable: false, depth, onProgress: (d, s) => console.log('depth', d, 'states', s, Math.round(performance.now()-t0),'ms') });
console.log(depth, r.states, r.transitions, r.violations.slice(0,2), r.excused.length, Math.round(performance.now() - t0), 'ms');
}
