import { World } from '../app/sim/explore/world.js';
for (let i = 0; i < 200; i++) new World({ brokers: 2, records: 2, faults: 1, minInsyncReplicas: 1, uncleanLeaderElectionEnable: false });
