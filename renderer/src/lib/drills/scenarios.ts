/**
 * The scenario catalogue of the drills: each one a named list of steps with a paragraph on what
 * Kafka does and what to watch on the page. Every scenario starts by bringing every broker back
 * and works on a fresh `drill-<n>` topic, so scenarios run in any order on any cluster state.
 */
import { COORDINATOR_FAILOVER } from './group-scenarios.js';
import { compactionScenario } from './compaction-scenario.js';
import { ACCESS_DENIED, QUOTA_THROTTLE } from './security-scenarios.js';
import { TXN_COORDINATOR_DIES, TXN_PRODUCER_DIES, TXN_ZOMBIE_FENCED } from './txn-scenarios.js';
import type { DrillScenario, DrillStep } from './runner.js';
import {
  createTopicStep,
  faultRememberedStep,
  faultStep,
  produceStep,
  restoreEveryBroker,
  startRoleStep,
  verifyAcknowledgedStep,
  waitEveryBrokerRunning,
  waitIsrWith,
  waitIsrWithout,
  waitNewLeader,
  waitPartition,
  waitRoleDown,
} from './steps.js';

const prelude = (): DrillStep[] => [restoreEveryBroker(), waitEveryBrokerRunning()];

export const SCENARIOS: DrillScenario[] = [
  {
    id: 'leader-failover',
    name: 'Leader failover',
    explanation:
      'Kill the leader of an RF 3 partition (min.insync.replicas 2). The dead broker stops heartbeating; after broker.session.timeout.ms (9 s) the controller fences it, removes it from every ISR and elects the first replica in assignment order that is still in the ISR. The leader epoch goes up by one. Nothing acknowledged is lost: acks=all records were on every ISR member, and the new leader was one of them. When the old broker restarts it fetches from the new leader, catches up to the high watermark and rejoins the ISR.',
    watch: 'The leader column moves to another broker and the ISR loses the killed one (leader.changed with reason broker-fenced, isr.shrunk) about 9 s of cluster time after the kill; HW stays where it was. After the restart, isr.expanded brings it back.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('kill', 'leader', 'Kill the leader'),
      waitNewLeader(),
      waitIsrWithout('oldLeader', 30_000),
      produceStep({ count: 5, acks: 'all', why: 'Two replicas are still in the ISR, enough for min.insync.replicas 2.' }),
      startRoleStep('oldLeader', 'Restart the old leader'),
      waitIsrWith('oldLeader', 60_000, 'Wait for the old leader to catch up and rejoin the ISR'),
      verifyAcknowledgedStep(false),
    ],
  },
  {
    id: 'acks-all-too-few-replicas',
    name: 'acks=all with too few replicas',
    explanation:
      'With min.insync.replicas 2, a leader refuses acks=all writes while its ISR has fewer than 2 members: the produce fails with NOT_ENOUGH_REPLICAS and nothing is appended. That is the point of the setting — Kafka gives up availability rather than acknowledge a write that lives on one disk. An acks=1 write is still appended, but since Kafka 3.7 the high watermark does not move while the ISR is below min.insync.replicas, so consumers cannot see it until a second replica is back in the ISR.',
    watch: 'The two followers go to controlled-shutdown / stopped and leave the ISR at once (isr.shrunk, reason controlled-shutdown). The acks=all step ends in NOT_ENOUGH_REPLICAS; the acks=1 record raises the leader’s LEO but not the HW. When the followers return, isr.expanded and the HW passes the acks=1 record.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2'),
      produceStep({ count: 3, acks: 'all' }),
      faultStep('stop', 'followers', 'Controlled shutdown of both followers'),
      waitIsrWithout('followers', 30_000),
      waitRoleDown('followers', 'Wait for both followers to finish shutting down'),
      produceStep({ count: 3, acks: 'all', expect: 'NOT_ENOUGH_REPLICAS', why: 'the ISR has 1 member and min.insync.replicas is 2; nothing was appended.' }),
      produceStep({ count: 1, acks: 1, why: 'acks=1 does not check min.insync.replicas, but the HW is frozen below it.' }),
      startRoleStep('followers', 'Restart both followers'),
      waitIsrWith('followers', 60_000, 'Wait for both followers to rejoin the ISR'),
      waitPartition('Wait for the HW to pass the acks=1 record', 30_000, (p, ctx) => {
        const last = ctx.acknowledged[ctx.acknowledged.length - 1];
        return last && p.highWatermark > last.offset ? `HW ${p.highWatermark}: offset ${last.offset} is now visible to consumers.` : null;
      }),
      verifyAcknowledgedStep(false),
    ],
  },
  {
    id: 'unclean-election',
    name: 'Unclean election loses data',
    explanation:
      'Jepsen, 2013: a leader whose followers fell out of the ISR keeps acknowledging acks=all writes alone, because acks=all means "every ISR member", and min.insync.replicas 1 lets the ISR be the leader by itself. Here replication from the leader is cut (the followers’ fetchers stall while they keep heartbeating), the ISR shrinks to the leader, and 5 writes are acknowledged by it alone. Then the leader dies. With unclean.leader.election.enable=true the controller elects a follower outside the ISR (leader.changed unclean, RECOVERING); new writes reuse the same offsets. When the old leader returns it finds its log diverged from the new leader’s epoch and truncates the acknowledged records away.',
    watch: 'isr.shrunk to the leader alone ~30–45 s after the stall; the kill; leader.changed with the unclean flag; then replica.truncated on the old leader (diverging-epoch). The "data lost" panel lists the acknowledged offsets that no longer exist.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'true' }, 'min.insync.replicas 1, unclean.leader.election.enable=true'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('stall', 'followers', 'Cut replication: stall both followers’ fetchers (they keep heartbeating)'),
      produceStep({ count: 1, acks: 1, why: 'The followers cannot fetch it, so they start to lag.' }),
      waitIsrWithout('followers', 90_000),
      produceStep({ count: 5, acks: 'all', why: 'acks=all succeeded with the leader as the only ISR member.' }),
      faultStep('kill', 'oldLeader', 'Kill the leader'),
      faultRememberedStep('unstall', 'followers', 'Resume the followers’ fetchers'),
      waitNewLeader(60_000),
      produceStep({ count: 3, acks: 'all', why: 'The new leader writes them at the offsets the old leader had used.' }),
      startRoleStep('oldLeader', 'Restart the old leader'),
      waitIsrWith('oldLeader', 90_000, 'Wait for the old leader to truncate its divergent tail and rejoin the ISR'),
      verifyAcknowledgedStep(true),
    ],
  },
  {
    id: 'power-loss-default-flush',
    name: 'Power loss with default flush settings',
    explanation:
      'Kafka never fsyncs by default (flush.messages and flush.ms are Long.MAX): acknowledged records sit in the OS page cache and durability comes from having several replicas. Here the flushed offset of every replica stays at 0. A power loss on one broker loses its unflushed tail, but it re-fetches it from the new leader on restart: nothing is lost. A power cut that takes every replica down at once (a rack or a whole small cluster) leaves no copy: each broker comes back with its log truncated to its flushed offset, and every acknowledged record is gone.',
    watch: 'The "flushed" value of each replica stays at 0 while LEO and HW grow. After the first power loss, replica.truncated (power-loss) on one broker and then isr.expanded as it catches up. After the second, replica.truncated on all three and the HW back at 0.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2, default flush settings'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('powerLoss', 'leader', 'Power loss on the leader'),
      waitNewLeader(),
      startRoleStep('oldLeader', 'Restart it (its unflushed tail is gone)'),
      waitIsrWith('oldLeader', 60_000, 'Wait for it to re-fetch from the new leader and rejoin the ISR'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('powerLoss', 'replicas', 'Power loss on every replica’s broker at once'),
      startRoleStep('replicas', 'Restart them all'),
      waitPartition('Wait for a leader', 60_000, (p) => (p.leader >= 0 ? `Broker ${p.leader} leads in epoch ${p.leaderEpoch}; HW ${p.highWatermark}, LEO ${p.replicaStates.map((r) => `${r.brokerId}:${r.logEndOffset}`).join(' ')}.` : null)),
      verifyAcknowledgedStep(true),
    ],
  },
  COORDINATOR_FAILOVER,
  compactionScenario(),
  ACCESS_DENIED,
  QUOTA_THROTTLE,
  TXN_PRODUCER_DIES,
  TXN_ZOMBIE_FENCED,
  TXN_COORDINATOR_DIES,
];

export function scenarioById(id: string): DrillScenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}
