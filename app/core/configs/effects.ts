/**
 * What each config does to durability, availability and performance, in our own words, drawn
 * from the replication rules (docs/semantics.md) and Kafka's config docs.
 *
 * Guarantees:
 * - Each entry is one plain sentence per aspect (checked by the tests).
 * - A broker config that is only the cluster default of a topic config (`log.retention.ms` for
 *   `retention.ms`, `message.max.bytes` for `max.message.bytes`, …) shares the topic config's
 *   effect; `BROKER_EFFECTS` lists only broker configs with an effect of their own. The catalogue
 *   applies that rule, so the two texts cannot drift apart.
 * - Every key names a config in the catalogue (checked by the tests).
 */
import type { ConfigEffect } from './types.js';

/** Effects of topic configs, which their broker synonyms share. */
export const TOPIC_EFFECTS: Readonly<Record<string, ConfigEffect>> = {
  'cleanup.policy': {
    durability:
      'With "delete", old segments are removed once retention.ms or retention.bytes allows it, whether or not anyone has consumed them; with "compact", only the last record of each key is kept, so a consumer reading from the start sees each key\'s latest value but not every update.',
  },
  'compression.type': {
    performance:
      'A codec other than "producer" that differs from the batch\'s own makes the broker recompress every batch it appends, which costs CPU on the leader.',
  },
  'compression.gzip.level': {
    performance: 'A higher level stores smaller batches but makes gzip recompression on the broker slower.',
  },
  'compression.lz4.level': {
    performance: 'A higher level stores smaller batches but makes LZ4 recompression on the broker slower.',
  },
  'compression.zstd.level': {
    performance: 'A higher level stores smaller batches but makes Zstandard recompression on the broker slower.',
  },
  'delete.retention.ms': {
    durability:
      'On a compacted topic, a consumer that lags by more than this may never see a delete marker and so keeps a record that was deleted.',
  },
  'file.delete.delay.ms': {
    performance: 'Segments that left the log keep using disk space for this long, which gives reads already under way time to finish.',
  },
  'flush.messages': {
    durability:
      'By default Kafka never forces an fsync and relies on replicas instead, so a power loss that empties every in-sync replica\'s page cache at once can lose acknowledged writes; a lower value narrows that window.',
    performance: 'Low values fsync often and cut write throughput sharply.',
  },
  'flush.ms': {
    durability:
      'By default no time-based fsync is forced and durability rests on replication alone; a lower value bounds how long acknowledged records may live only in memory.',
    performance: 'Frequent forced fsyncs lower throughput and raise produce latency.',
  },
  'follower.replication.throttled.replicas': {
    durability: 'A listed replica that is out of sync catches up only as fast as follower.replication.throttled.rate allows, so the partition spends longer with fewer up-to-date copies.',
    performance: 'Throttling the replicas a reassignment adds keeps its copying from crowding out producers and consumers.',
  },
  'index.interval.bytes': {
    performance: 'A smaller interval makes the offset index denser: quicker lookups by offset or timestamp, larger index files.',
  },
  'leader.replication.throttled.replicas': {
    durability: 'An out-of-sync follower fetching from a listed leader replica is served only as fast as leader.replication.throttled.rate allows, so it takes longer to rejoin the ISR.',
    performance: 'Throttling the replicas a reassignment moves away from keeps its copying from crowding out producers and consumers.',
  },
  'max.compaction.lag.ms': {
    performance: 'A compacted topic rolls its active segment by the shorter of this and segment.ms, and a log dirty for longer is cleaned whatever its ratio: more rolls and more cleaning.',
  },
  'max.message.bytes': {
    availability: 'A batch larger than this is refused with MESSAGE_TOO_LARGE, so the producer cannot write it at all.',
    performance: 'Raising it means followers and consumers move larger batches per fetch and need more memory to do so.',
  },
  'message.timestamp.after.max.ms': {
    availability: 'Batches whose CreateTime lies further in the future than this are refused with INVALID_TIMESTAMP, so a producer with a fast clock cannot write.',
    durability: 'Time-based retention goes by the newest timestamp in a segment, so a far-future timestamp would otherwise keep its segment past retention.ms.',
  },
  'message.timestamp.before.max.ms': {
    availability: 'Batches whose CreateTime lies further in the past than this are refused with INVALID_TIMESTAMP; by default any age is accepted.',
  },
  'message.timestamp.type': {
    durability: 'With LogAppendTime, time-based retention counts from when the broker stored a record rather than from the producer\'s clock.',
  },
  'min.cleanable.dirty.ratio': {
    performance: 'A lower ratio compacts more often: less superseded data on disk, more cleaner I/O.',
  },
  'min.compaction.lag.ms': {
    durability: 'Every record stays readable, uncompacted, for at least this long, so consumers within that window see each update.',
  },
  'min.insync.replicas': {
    durability: 'With acks=all, a write is acknowledged only once at least this many in-sync replicas have it, so it survives the loss of all but one of them.',
    availability:
      'acks=all writes are refused (NOT_ENOUGH_REPLICAS) when fewer replicas are in sync, and since Kafka 3.7 the high watermark also stops, so even acks=0/1 writes stay invisible until the ISR recovers.',
  },
  preallocate: {
    performance: 'Allocating each segment file at full size up front can speed appends on some file systems, at the cost of disk space.',
  },
  'retention.bytes': {
    durability: 'Once a partition grows past this size its oldest segments are deleted, consumed or not, so a slow consumer can lose records it has not read.',
  },
  'retention.ms': {
    durability: 'Records older than this are deleted whether or not they have been consumed, so a consumer that lags further behind loses them; -1 keeps everything.',
  },
  'segment.bytes': {
    availability: 'A batch larger than a whole segment is refused with RECORD_LIST_TOO_LARGE.',
    durability: 'Retention deletes whole segments, so larger segments keep expired records longer and free space in bigger steps.',
    performance: 'Smaller segments mean more files and open index handles per partition.',
  },
  'segment.index.bytes': {
    performance: 'A full offset index forces a segment roll, so too small an index produces many small segments.',
  },
  'segment.jitter.ms': {
    performance: 'Spreads time-based rolls so that partitions created together do not all roll, and run retention, at the same moment.',
  },
  'segment.ms': {
    durability: 'A segment that keeps receiving data is rolled at least this often, so retention can delete its oldest records in steps no coarser than this.',
    performance: 'A short interval creates many small segment files on quiet partitions.',
  },
  'unclean.leader.election.enable': {
    durability:
      'When enabled, a replica outside the ISR may become leader, and every acknowledged record it lacks is lost for good once the old leader returns and truncates.',
    availability:
      'When disabled, a partition whose in-sync replicas are all down stays offline (leader -1) until one of them returns.',
  },
};

/** Effects of broker configs that are not merely a topic config's cluster default. */
export const BROKER_EFFECTS: Readonly<Record<string, ConfigEffect>> = {
  'auto.create.topics.enable': {
    durability:
      'An auto-created topic gets default.replication.factor, 1 unless changed, so a mistyped topic name can silently create an unreplicated topic.',
  },
  'auto.leader.rebalance.enable': {
    availability: 'Moving leadership back to preferred replicas briefly sends the moved partitions\' clients to retry against the new leader (NOT_LEADER_OR_FOLLOWER).',
    performance: 'Keeps leaders, and so client load, spread across brokers as the assignment intends.',
  },
  'max.connections': {
    availability: 'A client that finds every connection slot of a broker taken is disconnected at once and retries, so a connection leak elsewhere can lock out healthy clients.',
    performance: 'Caps the memory and file handles a crowd of clients can take on one broker.',
  },
  'socket.request.max.bytes': {
    availability: 'A produce request larger than this closes the client\'s connection, so it must stay above the largest batch producers send (max.message.bytes and the producer\'s max.request.size).',
    performance: 'Bounds the memory one request can make a broker buffer before it is read.',
  },
  'broker.heartbeat.interval.ms': {
    availability: 'It must stay well below broker.session.timeout.ms, or a few delayed heartbeats get a healthy broker fenced and its leaderships moved.',
  },
  'broker.session.timeout.ms': {
    availability:
      'A crashed broker keeps its leaderships until this long passes without a heartbeat, so its partitions cannot be written for about that time; too short a timeout fences brokers on brief pauses.',
    durability: 'When it expires the broker leaves every ISR at once, which can drop partitions below min.insync.replicas.',
  },
  'controller.quorum.election.timeout.ms': {
    availability: 'Bounds how quickly a new active controller is elected after the old one fails; until then no leader elections or ISR changes happen.',
  },
  'controller.quorum.fetch.timeout.ms': {
    availability: 'Voters suspect the active controller after this long without a response, so controller failover starts about this long after it dies.',
  },
  'default.replication.factor': {
    durability: 'Topics created without a replication factor, auto-created ones included, get this many copies, and with the default of 1 losing one disk loses their data.',
    availability: 'With a replication factor of 1, a partition goes offline whenever its only broker is down.',
  },
  'delete.topic.enable': {
    durability: 'When false, deleting a topic fails with TOPIC_DELETION_DISABLED, which guards against removing data by mistake.',
  },
  'follower.replication.throttled.rate': {
    availability: 'Set below the incoming write rate, a throttled replica never catches up, so it never joins the ISR and its reassignment never completes.',
    performance: 'Caps the bytes per second this broker fetches for throttled, out-of-sync replicas, so reassignments do not crowd out client traffic.',
  },
  'leader.imbalance.check.interval.seconds': {
    availability: 'Leadership returns to a recovered preferred replica at most this long later, each move briefly interrupting that partition\'s clients.',
    performance: 'Until the check runs, the brokers that took over leadership carry the extra client load.',
  },
  'leader.replication.throttled.rate': {
    availability: 'Set below the incoming write rate, a throttled follower never catches up, so it never joins the ISR and its reassignment never completes.',
    performance: 'Caps the bytes per second this broker serves to throttled, out-of-sync followers, so reassignments do not crowd out client traffic.',
  },
  'log.flush.scheduler.interval.ms': {
    durability: 'How often the broker checks whether flush.ms calls for an fsync; the default never checks, which leaves durability to replication.',
  },
  'log.retention.check.interval.ms': {
    performance: 'Expired segments are deleted up to this long after retention allows, so disk use overshoots the retention limits by that much.',
  },
  'num.partitions': {
    performance: 'Topics created without a partition count get this many, and since partitions are the unit of parallelism and can never be removed, the choice is hard to undo.',
  },
  'max.incremental.fetch.session.cache.slots': {
    performance: 'A consumer with a fetch session sends and receives only the partitions that changed, so when the slots run out the consumers left without one send and receive every partition on every fetch.',
  },
  'num.replica.fetchers': {
    durability: 'More fetcher threads help followers keep up and so stay in the ISR under heavy load.',
    performance: 'Each thread replicates from one source broker in parallel, at the cost of CPU and memory.',
  },
  'replica.fetch.backoff.ms': {
    availability: 'After a fetch error a follower pauses this long, so a long backoff delays its catch-up and its return to the ISR.',
  },
  'replica.fetch.max.bytes': {
    performance: 'Larger fetches let a lagging follower catch up faster; a first batch above this is still returned, so replication never stalls on a large batch.',
  },
  'replica.fetch.min.bytes': {
    performance: 'Raising it makes the leader hold follower fetches until this much data is ready, trading fewer requests for higher acks=all latency.',
  },
  'replica.fetch.response.max.bytes': {
    performance: 'Caps the size of a whole replica fetch response, which bounds memory per fetch but slows a follower catching up on many partitions.',
  },
  'replica.fetch.wait.max.ms': {
    availability: 'It must stay below replica.lag.time.max.ms, or followers of quiet partitions keep dropping out of the ISR.',
  },
  'replica.high.watermark.checkpoint.interval.ms': {
    performance: 'A shorter interval writes the high-watermark file more often; after a crash a broker restarts from a checkpoint at most this old.',
  },
  'replica.lag.time.max.ms': {
    durability: 'A follower that has not caught up for this long leaves the ISR, after which acks=all no longer waits for it and fewer copies stand behind new writes.',
    availability:
      'A follower that stops fetching while its broker stays registered remains in the ISR for up to 1.5 times this long, stalling acks=all writes and the high watermark until the ISR shrinks.',
  },
  'replica.socket.timeout.ms': {
    availability: 'A follower waits this long on an unresponsive leader before retrying, delaying its catch-up; it should be at least replica.fetch.wait.max.ms.',
  },
  'authorizer.class.name': {
    availability: 'With the StandardAuthorizer, a client whose principal no ACL binding allows gets TOPIC_, GROUP_ or CLUSTER_AUTHORIZATION_FAILED instead of being served.',
  },
  'super.users': {
    availability: 'A super user is allowed everything whatever the bindings say, so list the admin and inter-broker principals here before denying by default.',
  },
  'allow.everyone.if.no.acl.found': {
    availability: 'When true, a topic or group without any binding stays open to everyone, so adding the first binding to it closes it to everyone else.',
  },
  'ssl.principal.mapping.rules': {
    availability: 'ACL bindings must name the principal these rules make of a client certificate, or that client is denied.',
  },
  'quota.window.num': {
    performance: 'Client rates are averaged over this many samples, so more samples let a client burst above its quota for longer before it is throttled.',
  },
  'quota.window.size.seconds': {
    performance: 'Client rates are averaged over samples this long, so longer samples let a client burst above its quota for longer before it is throttled.',
  },
  'controller.quota.window.num': {
    performance: 'A client may create or delete up to controller_mutation_rate times this many windows of partitions in a burst before it is throttled.',
  },
  'controller.quota.window.size.seconds': {
    performance: 'A client may create or delete up to controller_mutation_rate times this many seconds of partitions in a burst before it is throttled.',
  },
  'replication.quota.window.num': {
    performance: 'The throttle rate is averaged over this many samples, so more samples tolerate longer bursts above the rate.',
  },
  'replication.quota.window.size.seconds': {
    performance: 'The throttle rate is averaged over samples this long, so longer samples tolerate longer bursts above the rate.',
  },
  'unclean.leader.election.interval.ms': {
    availability: 'Enabling unclean election dynamically can take this long to revive a leaderless partition, because the controller looks for such partitions only this often.',
  },
  'group.initial.rebalance.delay.ms': {
    performance: 'A new group waits this long for more members before its first rebalance, so consumers that start together rebalance once, at the cost of a later start.',
  },
  'group.max.session.timeout.ms': {
    availability: 'The longest session a consumer may ask for: a larger one lets a slow consumer keep its partitions, and lets a dead one hold them longer before a rebalance.',
  },
  'group.max.size': {
    availability: 'A consumer that would make a group larger than this is refused with GROUP_MAX_SIZE_REACHED.',
  },
  'group.min.session.timeout.ms': {
    availability: 'The shortest session a consumer may ask for: a shorter one detects a dead consumer sooner, and lets a paused one lose its partitions to a rebalance.',
  },
  'offset.metadata.max.bytes': {
    availability: 'A commit whose metadata string is longer than this is refused with OFFSET_METADATA_TOO_LARGE.',
  },
  'offsets.commit.timeout.ms': {
    durability: 'A commit is acknowledged only once every in-sync replica of its __consumer_offsets partition has it, so committed offsets survive the coordinator\'s broker.',
    availability: 'A commit the replicas do not confirm within this time fails with REQUEST_TIMED_OUT and the consumer commits again.',
  },
  'offsets.retention.check.interval.ms': {
    performance: 'How often each coordinator looks for expired offsets; until the next check an expired offset is still returned.',
  },
  'offsets.retention.minutes': {
    durability: 'A group that stays empty longer than this loses its committed offsets, and its consumers then start from auto.offset.reset.',
  },
  'offsets.topic.num.partitions': {
    performance: 'More partitions spread the groups over more coordinators; it counts only when __consumer_offsets is created.',
  },
  'offsets.topic.replication.factor': {
    durability: 'Each group\'s offsets and assignment are kept on this many brokers, so its coordinator can fail over without losing them.',
    availability: 'Until this many brokers are running, __consumer_offsets cannot be created and no consumer group can form.',
  },
  'node.id': {
    availability: 'Clients find partition leaders by this id in Metadata, so a broker that comes back under another id is a new broker holding none of the old one\'s replicas.',
  },
  'broker.id': {
    availability: 'In KRaft mode it equals node.id, the id clients and the controller know the broker by, and replica assignments name brokers by it.',
  },
  'broker.rack': {
    durability: 'Rack-aware placement puts the replicas of a partition in different racks, so losing one rack (power, switch) takes at most one copy when there are at least as many racks as replicas.',
  },
  'controlled.shutdown.enable': {
    availability: 'A controlled shutdown moves leadership off the broker before it stops, so its partitions stay writable instead of waiting for broker.session.timeout.ms to fence it.',
  },
  'num.recovery.threads.per.data.dir': {
    availability: 'After an unclean shutdown a broker recovers its logs before it serves them, and more threads shorten that time for a broker with many partitions.',
  },
  'log.flush.offset.checkpoint.interval.ms': {
    availability: 'After a crash a broker recovers each log from its last checkpointed recovery point, so a longer interval means more log to scan before the broker serves again.',
  },
  'log.flush.start.offset.checkpoint.interval.ms': {
    durability: 'A log start offset advanced by DeleteRecords or retention but not yet checkpointed can move back after a crash, so records already deleted briefly become readable again.',
  },
  'replica.selector.class': {
    performance: 'With a rack-aware selector, consumers that set client.rack fetch from a replica in their own rack, which saves cross-rack traffic but reads only below that follower\'s high watermark.',
  },
  'replica.socket.receive.buffer.bytes': {
    performance: 'A larger receive buffer lets a follower keep more fetched data in flight, which helps replication over links with a long round-trip time.',
  },
  'log.cleaner.enable': {
    durability: 'Without the cleaner, compacted topics (__consumer_offsets among them in Kafka) are never compacted, so they keep every superseded record and grow without bound.',
  },
  'log.cleaner.threads': {
    performance: 'More cleaner threads compact more logs at once, at the cost of disk I/O and CPU that client traffic would otherwise use.',
  },
  'log.cleaner.backoff.ms': {
    performance: 'A cleaner thread with nothing to clean sleeps this long, so a longer backoff delays the compaction of a log that just became dirty enough.',
  },
  'log.cleaner.dedupe.buffer.size': {
    performance: 'A larger dedupe buffer lets one cleaning pass cover more of a log, so fewer passes rewrite the same segments.',
  },
  'log.cleaner.io.buffer.load.factor': {
    performance: 'A fuller dedupe buffer cleans more of a log per pass but makes hash collisions, and so extra work, more likely.',
  },
  'log.cleaner.io.buffer.size': {
    performance: 'Larger cleaner I/O buffers read and write segments in fewer, bigger operations, using more memory.',
  },
  'log.cleaner.io.max.bytes.per.second': {
    performance: 'Caps the disk throughput of compaction so that it does not crowd out produce and fetch traffic, at the cost of slower cleaning.',
  },
  'transaction.state.log.load.buffer.size': {
    availability: 'A new transaction coordinator reads its state in batches of this size, so a larger buffer can shorten the time before it serves transactional producers.',
  },
  'transaction.state.log.min.isr': {
    durability: 'Transaction state writes need this many in-sync replicas of __transaction_state, so a coordinator failover does not lose a committed or aborted transaction.',
  },
  'transaction.state.log.num.partitions': {
    performance: 'More partitions spread the transactional ids over more coordinators; it counts only when __transaction_state is created.',
  },
  'transaction.state.log.replication.factor': {
    durability: 'Transaction state is kept on this many brokers, so its coordinator can fail over without losing it.',
    availability: 'Until this many brokers are running, __transaction_state cannot be created and no transactional producer can start.',
  },
  'transaction.max.timeout.ms': {
    availability: "A lower maximum bounds how long a stuck producer's open transaction can hold back every read_committed consumer of its partitions before the coordinator aborts it.",
  },
  'transactional.id.expiration.ms': {
    durability: 'Once a transactional id expires, a zombie of its last producer is no longer fenced by epoch on a new InitProducerId: the new producer starts a new producer id.',
  },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': {
    availability: 'A transaction past its timeout is aborted at the next check, so read_committed consumers wait at most its timeout plus this interval behind it.',
  },
  'transaction.remove.expired.transaction.cleanup.interval.ms': {
    performance: 'How often expired transactional ids leave the coordinator\'s memory and __transaction_state.',
  },
  'transaction.partition.verification.enable': {
    durability: 'Verification stops a delayed write of a transaction that already ended from opening a new, hanging transaction that would hold the last stable offset until an operator aborts it.',
    performance: 'A producer\'s first write to each partition of a transaction waits for one round trip to the transaction coordinator.',
  },
  'transaction.state.log.segment.bytes': {
    performance: 'Segment size of __transaction_state; Kafka keeps it small so that compaction and a new coordinator\'s load stay quick.',
  },
  'offsets.topic.segment.bytes': {
    performance: 'Segment size of __consumer_offsets; Kafka keeps it small so that compaction and a new coordinator\'s load stay quick.',
  },
};
