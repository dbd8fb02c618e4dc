/**
 * The mutation run's catalogue: each entry breaks exactly one replication rule of the engine
 * (a search/replace patch of one file, or a few edits of one rule), names the rule it breaks in
 * Kafka's terms, and is expected to be caught ("killed") by the scenario suite, the fault seeds or
 * the explorer. An entry no test can tell from the original says why in `equivalent`.
 *
 * Invariant: every `search` text occurs exactly once in its file (mutations.test.ts checks it in
 * CI, so a refactor that moves a rule fails there instead of silently testing nothing).
 */

export interface MutationEdit {
  search: string;
  replace: string;
}

export interface Mutation {
  name: string;
  /** Repository path of the file the edits apply to. */
  file: string;
  /** The rule the mutant breaks, as Kafka states it. */
  rule: string;
  edits: MutationEdit[];
  /** Set when the mutant behaves like the original everywhere the engine can reach: why. */
  equivalent?: string;
}

const PARTITION = 'app/core/broker/partition.ts';
const FOLLOWERS = 'app/core/broker/follower-states.ts';
const ISR_STATE = 'app/core/broker/isr-state.ts';
const CHANGE = 'app/core/controller/partition-change.ts';
const BROKER_LIFECYCLE = 'app/core/controller/broker-lifecycle.ts';

export const MUTATIONS: Mutation[] = [
  // ---------------------------------------------------------------- leader: follower progress (docs/semantics.md#isr-membership)
  {
    name: 'caught-up-not-refreshed',
    file: FOLLOWERS,
    rule: 'A follower fetching at the leader LEO is caught up as of now (Replica.updateFetchStateOrThrow).',
    edits: [{ search: 'if (fetchOffset >= leaderLEO) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, now);\n    else if', replace: 'if (false) f.lastCaughtUpMs = now;\n    else if' }],
  },
  {
    name: 'previous-fetch-rule-dropped',
    file: FOLLOWERS,
    rule: "A follower that reached the leader LEO of its previous fetch is caught up as of that fetch (steady traffic keeps it in sync).",
    edits: [{ search: 'else if (fetchOffset >= f.lastFetchLeaderLEO) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, f.lastFetchMs);', replace: '' }],
  },
  {
    name: 'caught-up-only-when-equal',
    file: PARTITION,
    rule: 'isCaughtUp allows replica.lag.time.max.ms of lag, not only LEO equality.',
    edits: [{ search: 'return f.logEndOffset === this.log.logEndOffset || now - f.lastCaughtUpMs <= this.host.brokerConfig().replicaLagTimeMaxMs;', replace: 'return f.logEndOffset === this.log.logEndOffset || now < 0;' }],
  },
  {
    name: 'lag-time-ignored',
    file: PARTITION,
    rule: 'A follower that stopped fetching leaves the ISR after replica.lag.time.max.ms (scenario 1).',
    edits: [{ search: 'return f.logEndOffset === this.log.logEndOffset || now - f.lastCaughtUpMs <= this.host.brokerConfig().replicaLagTimeMaxMs;', replace: 'return f.logEndOffset === this.log.logEndOffset || now >= 0;' }],
  },
  // ---------------------------------------------------------------- leader: high watermark (docs/semantics.md#high-watermark-and-what-consumers-read)
  {
    name: 'hw-ignores-caught-up-follower',
    file: PARTITION,
    rule: 'A caught-up, ISR-eligible follower outside the ISR holds the HW back, so it can reach the HW and rejoin.',
    edits: [{ search: 'if (maximal.includes(id) || (this.isCaughtUp(f, now) && isIsrEligible(this.host.image, id, f.brokerEpoch))) candidate = f.logEndOffset;', replace: 'if (maximal.includes(id)) candidate = f.logEndOffset;' }],
  },
  {
    name: 'hw-is-leader-leo',
    file: PARTITION,
    rule: 'HW = min LEO over the ISR, not the leader LEO.',
    edits: [{ search: 'if (f.logEndOffset >= candidate) return;', replace: 'if (f.logEndOffset >= candidate || candidate >= 0) return;' }],
  },
  {
    name: 'strict-min-isr-off',
    file: PARTITION,
    rule: 'The HW does not advance while the committed ISR is below the effective min ISR (3.7+, KAFKA-15583).',
    edits: [{ search: 'if (this.committedIsr.length < this.effectiveMinIsr()) return;\n    const now', replace: 'const now' }],
  },
  {
    name: 'hw-may-go-backwards',
    file: 'app/core/log/partition-log.ts',
    rule: "A leader's HW never decreases; a lower candidate is ignored.",
    edits: [{ search: 'if (hw <= this.hw) return false;', replace: 'if (hw === this.hw) return false;' }],
  },
  {
    name: 'follower-hw-uncapped',
    file: 'app/core/log/partition-log.ts',
    rule: "A follower's HW = min(leader HW, its own LEO).",
    edits: [{ search: 'const hw = Math.max(this.startOffset, Math.min(leaderHw, this.leo));', replace: 'const hw = Math.max(this.startOffset, leaderHw);' }],
  },
  // ---------------------------------------------------------------- ISR membership (docs/semantics.md#isr-membership)
  {
    name: 'rejoin-ignores-epoch-start',
    file: PARTITION,
    rule: 'A follower joins the ISR only with LEO >= the leader epoch start offset (KAFKA-7128).',
    edits: [{ search: 'if (f.logEndOffset < this.log.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;', replace: 'if (f.logEndOffset < this.log.highWatermark) return;' }],
  },
  {
    name: 'rejoin-needs-leo',
    file: PARTITION,
    rule: "A follower joins the ISR when its LEO reaches the HW, not the leader's LEO (scenario 5).",
    edits: [{ search: 'if (f.logEndOffset < this.log.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;', replace: 'if (f.logEndOffset < this.log.logEndOffset || f.logEndOffset < this.leaderEpochStartOffset) return;' }],
  },
  {
    name: 'rejoin-ignores-hw',
    file: PARTITION,
    rule: 'A follower joins the ISR only once its LEO reaches the HW.',
    edits: [{ search: 'if (f.logEndOffset < this.log.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;', replace: 'if (f.logEndOffset < this.leaderEpochStartOffset) return;' }],
  },
  {
    name: 'never-rejoin',
    file: PARTITION,
    rule: 'A follower that caught up rejoins the ISR (liveness).',
    edits: [{ search: 'if (!isIsrEligible(this.host.image, followerId, f.brokerEpoch)) return;\n    const proposed', replace: 'if (followerId >= 0) return;\n    const proposed' }],
  },
  {
    name: 'fenced-replica-may-join',
    file: ISR_STATE,
    rule: 'A fenced or shutting-down broker cannot join the ISR (KIP-841).',
    edits: [{ search: 'if (!reg || reg.fenced || reg.inControlledShutdown) return false;', replace: 'if (!reg) return false;' }],
  },
  {
    name: 'shrink-never',
    file: PARTITION,
    rule: 'Out-of-sync followers are removed from the ISR by the periodic check.',
    edits: [{ search: 'if (!any) return;', replace: 'if (any || !any) return;' }],
  },
  // ---------------------------------------------------------------- produce (docs/semantics.md#produce-acks-and-mininsyncreplicas)
  {
    name: 'acks-all-admission-off',
    file: PARTITION,
    rule: 'acks=all is refused with NOT_ENOUGH_REPLICAS when the ISR is below min ISR (nothing appended).',
    edits: [{ search: 'if (acks !== -1 || this.committedIsr.length >= this.effectiveMinIsr()) return null;', replace: 'if (acks !== -1 || this.committedIsr.length >= 0) return null;' }],
  },
  {
    name: 'min-isr-uncapped',
    file: PARTITION,
    rule: 'effective min ISR = min(min.insync.replicas, replica count) (3.7+).',
    edits: [{ search: 'return Math.min(this.config().minInsyncReplicas, this.state.replicas.length);', replace: 'return this.config().minInsyncReplicas;' }],
  },
  {
    name: 'acks-all-after-append-committed-isr',
    file: PARTITION,
    rule: 'The post-append acks=all check uses the maximal ISR (NOT_ENOUGH_REPLICAS_AFTER_APPEND).',
    edits: [{ search: 'if (this.maximalIsr.length >= this.effectiveMinIsr()) return { errorCode: \'NONE\', baseOffset };', replace: 'if (this.committedIsr.length >= this.effectiveMinIsr()) return { errorCode: \'NONE\', baseOffset };' }],
    equivalent:
      'The waiter completes only when the HW passes the batch, and the HW advances only while the committed ISR is at least min ISR (strict min ISR), so the committed and the maximal ISR pass the check together; Kafka\'s own test accepts either outcome in this race.',
  },
  // ---------------------------------------------------------------- fetch and truncation (docs/semantics.md#truncation-by-leader-epoch-kip-101)
  {
    name: 'no-divergence-check',
    file: PARTITION,
    rule: 'A follower whose last fetched epoch diverges gets DivergingEpoch and truncates (KIP-101, KIP-279).',
    edits: [{ search: 'if (epoch < lastFetchedEpoch || endOffset < fetchOffset) return', replace: 'if (epoch < -1) return' }],
  },
  {
    name: 'stale-leader-epoch-accepted',
    file: PARTITION,
    rule: 'A fetch with an older leader epoch is refused with FENCED_LEADER_EPOCH (KIP-320).',
    edits: [{ search: "if (currentLeaderEpoch < this.leaderEpoch) return { ok: false, error: 'FENCED_LEADER_EPOCH' };", replace: '' }],
  },
  {
    name: 'truncate-to-follower-end',
    file: PARTITION,
    rule: 'On DivergingEpoch the follower truncates to the end of the common epoch (min of both ends), KIP-279.',
    edits: [{ search: 'if (own.epoch === diverging.epoch) target = Math.min(diverging.endOffset, own.endOffset, leo);', replace: 'if (own.epoch === diverging.epoch) target = Math.min(own.endOffset, leo);' }],
  },
  {
    name: 'consumers-read-to-leo',
    file: 'app/core/broker/fetch-purgatory.ts',
    rule: 'Consumers read only below the HW.',
    edits: [{ search: 'let batches = host.readOrOffline(found.replica, fp.fetchOffset, committed ? lso : hw, limit);', replace: 'let batches = host.readOrOffline(found.replica, fp.fetchOffset, committed ? lso : log.logEndOffset, limit);' }],
  },
  {
    name: 'kip-207-off',
    file: 'app/core/broker/offset-lookup.ts',
    rule: "ListOffsets latest answers OFFSET_NOT_AVAILABLE while a new leader's HW is below its epoch start (KIP-207).",
    edits: [{ search: 'const notAvailable = p.leaderEpochStartOffset > log.highWatermark;', replace: 'const notAvailable = p.leaderEpochStartOffset < 0;' }],
  },
  // ---------------------------------------------------------------- replication throttle (docs/semantics.md#replication-throttles-kip-73)
  {
    name: 'follower-throttles-in-sync',
    file: 'app/core/broker/replica-fetcher.ts',
    rule: 'The follower throttle applies only to replicas out of sync (ReplicationQuotaManager, shouldFollowerThrottle).',
    edits: [{ search: 'const outOfSync = p.log.logEndOffset < p.lastLeaderHighWatermark;', replace: 'const outOfSync = p.log.logEndOffset >= 0;' }],
  },
  {
    name: 'leader-throttles-in-sync',
    file: 'app/core/broker/fetch-purgatory.ts',
    rule: 'The leader throttle never applies to an ISR member (ReplicaManager.shouldLeaderThrottle).',
    edits: [{ search: 'if (p.maximalIsr.includes(followerId)) return false;', replace: '' }],
  },
  // ---------------------------------------------------------------- elections (docs/semantics.md#leader-elections)
  {
    name: 'election-ignores-isr',
    file: CHANGE,
    rule: 'A clean election picks only an ISR member.',
    edits: [{ search: 'return (isr === null || isr.includes(r) || electFrom.includes(r)) && isAcceptable(r, uncleanShutdown, ctx);', replace: 'return isAcceptable(r, uncleanShutdown, ctx);' }],
  },
  {
    name: 'election-in-isr-order',
    file: CHANGE,
    rule: 'A clean election takes the first valid replica in assignment order, not ISR order.',
    edits: [{ search: '    else leader = firstValidLeader(replicas, isr, electFrom, uncleanShutdown, ctx);\n  }\n  let fromElr', replace: '    else leader = firstValidLeader(isr, isr, electFrom, uncleanShutdown, ctx);\n  }\n  let fromElr' }],
  },
  {
    name: 'unclean-always-allowed',
    file: CHANGE,
    rule: 'Unclean election happens only when unclean.leader.election.enable allows it (or ElectLeaders UNCLEAN).',
    edits: [{ search: "} else if (mode !== 'preferred' && (mode === 'unclean' || ctx.uncleanAllowed)) {", replace: "} else if (mode !== 'preferred') {" }],
  },
  {
    name: 'unclean-stays-recovered',
    file: CHANGE,
    rule: 'An unclean election sets the leader recovery state to RECOVERING (KIP-704).',
    edits: [{ search: "recovery = 'RECOVERING';", replace: '' }],
  },
  {
    name: 'no-epoch-bump-on-leader-change',
    file: CHANGE,
    rule: 'Every leader change, including to -1, bumps the leader epoch.',
    edits: [{ search: 'leaderEpoch: current.leaderEpoch + (leaderChanged || droppedReplica ? 1 : 0),', replace: 'leaderEpoch: current.leaderEpoch + (droppedReplica ? 1 : 0),' }],
  },
  {
    name: 'keep-leader-out-of-isr',
    file: CHANGE,
    rule: 'A leader removed from the ISR (fenced, shutting down) loses its leadership.',
    edits: [{ search: 'if (current.leader >= 0 && replicas.includes(current.leader) && isValidLeader(current.leader, isr, electFrom, uncleanShutdown, ctx)) leader = current.leader;\n    else leader = firstValidLeader(replicas, isr, electFrom, uncleanShutdown, ctx);\n  }\n  let fromElr', replace: 'if (current.leader >= 0 && replicas.includes(current.leader)) leader = current.leader;\n    else leader = firstValidLeader(replicas, isr, electFrom, uncleanShutdown, ctx);\n  }\n  let fromElr' }],
  },
  {
    name: 'reassignment-completes-early',
    file: CHANGE,
    rule: 'A reassignment completes only when every target replica is in the ISR.',
    edits: [{ search: 'if (newIsr.length > 0 && newReplicas.every((r) => newIsr.includes(r))) {', replace: 'if (newIsr.length > 0) {' }],
  },
  // ---------------------------------------------------------------- controller (docs/semantics.md#controller-brokers-and-fencing)
  {
    name: 'fence-keeps-leadership',
    file: BROKER_LIFECYCLE,
    rule: 'Fencing a broker removes it from every ISR and moves its leaderships at once.',
    edits: [{ search: "      { type: 'BrokerRegistrationChange', brokerId, brokerEpoch: reg.brokerEpoch, fenced: true },\n      ...this.removeFromIsrs(brokerId, reason),", replace: "      { type: 'BrokerRegistrationChange', brokerId, brokerEpoch: reg.brokerEpoch, fenced: true }," }],
  },
  {
    name: 'shutdown-moves-at-fence',
    file: BROKER_LIFECYCLE,
    rule: 'Controlled shutdown moves leadership before the broker is granted shutdown and fenced.',
    edits: [
      { search: "          { type: 'BrokerRegistrationChange', brokerId: req.brokerId, brokerEpoch: reg.brokerEpoch, inControlledShutdown: true },\n          ...this.removeFromIsrs(req.brokerId, 'controlled-shutdown'),", replace: "          { type: 'BrokerRegistrationChange', brokerId: req.brokerId, brokerEpoch: reg.brokerEpoch, inControlledShutdown: true }," },
      { search: 'if (this.leaderCount(brokerId) > 0) return false;\n    const needed', replace: 'const needed' },
    ],
  },
  {
    name: 'unfence-no-election',
    file: BROKER_LIFECYCLE,
    rule: 'Unfencing a broker re-runs the election of every leaderless partition it is a replica of.',
    edits: [{ search: 'for (const { topic, state } of this.leaderless.ofReplica(this.image, brokerId)) {', replace: 'for (const { topic, state } of this.leaderless.ofReplica(this.image, -1)) {' }],
  },
  {
    name: 'duplicate-registration-accepted',
    file: BROKER_LIFECYCLE,
    rule: "A new incarnation is refused with DUPLICATE_BROKER_REGISTRATION while the old one's session is live.",
    edits: [{ search: 'if (existing && existing.incarnationId !== req.incarnationId && this.hasLiveSession(req.brokerId)) {', replace: 'if (existing && existing.incarnationId !== req.incarnationId && req.brokerId < 0) {' }],
  },
  {
    name: 'reregistration-keeps-isr',
    file: BROKER_LIFECYCLE,
    rule: 'A new incarnation is processed as a shutdown of the old one (4.0+, KAFKA-18106); after an unclean one it also leaves the ELR.',
    edits: [{ search: "this.commit(this.removeFromIsrs(req.brokerId, 'broker-reregistered', !clean));", replace: '' }],
  },
  {
    name: 'reregistration-always-clean',
    file: BROKER_LIFECYCLE,
    rule: 'A broker whose previous broker epoch does not match (no clean shutdown) is treated as an unclean shutdown (KIP-966).',
    edits: [{ search: 'const clean = req.previousBrokerEpoch === existing.brokerEpoch;', replace: 'const clean = existing.brokerEpoch >= 0;' }],
  },
  // ---------------------------------------------------------------- eligible leader replicas (KIP-966)
  {
    name: 'elr-not-kept',
    file: CHANGE,
    rule: 'Members leaving an ISR below min ISR are kept as eligible leader replicas.',
    edits: [{ search: '    if (isr.length >= ctx.elr!.minIsr) elr = [];\n    else elr =', replace: '    if (isr.length >= 0) elr = [];\n    else elr =' }],
  },
  {
    name: 'unclean-shutdown-stays-eligible',
    file: CHANGE,
    rule: 'A broker back from an unclean shutdown leaves the ELR.',
    edits: [{ search: '.filter((r) => !isr.includes(r) && r !== uncleanShutdown && replicas.includes(r))', replace: '.filter((r) => !isr.includes(r) && replicas.includes(r))' }],
  },
  {
    name: 'elr-elects-fenced',
    file: CHANGE,
    rule: 'Only an unfenced (acceptable) ELR member may be elected.',
    edits: [{ search: "return (isr === null || isr.includes(r) || electFrom.includes(r)) && isAcceptable(r, uncleanShutdown, ctx);", replace: "return isr === null || isr.includes(r) ? isAcceptable(r, uncleanShutdown, ctx) : electFrom.includes(r);" }],
  },
  // ---------------------------------------------------------------- security metadata (app/sim/explore/security-scope.ts)
  {
    name: 'snapshot-load-drops-acls',
    file: 'app/core/metadata/snapshot.ts',
    rule: "A broker loading a metadata snapshot gets its ACL bindings (KRaft's MetadataLoader publishes the AclsImage).",
    edits: [{ search: 'for (const [id, b] of snap.acls ?? []) image.acls.set(id, { ...b });', replace: '' }],
  },
  // ---------------------------------------------------------------- the product's health figures
  {
    name: 'under-replicated-counts-adding',
    file: 'app/service/cluster-views.ts',
    rule: "UnderReplicatedPartitions leaves a reassignment's adding replicas out of the replica count.",
    edits: [{ search: 'if (state.isr.length < state.replicas.length - state.addingReplicas.length) counts.underReplicatedPartitions++;', replace: 'if (state.isr.length < state.replicas.length) counts.underReplicatedPartitions++;' }],
  },
];
