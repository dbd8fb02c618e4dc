import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer group with the classic protocol, rebalancing: one member takes every partition, a
 * second joins and they split them, the second leaves and the first has them all again. Every
 * record is read, and the group's committed offsets end at the log ends.
 * Usage: GroupRebalance BOOTSTRAP TOPIC PARTITIONS RECORDS
 */
public class GroupRebalance {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        int records = Integer.parseInt(args[3]);
        Map<String, Integer> seen = new HashMap<>();
        try (KafkaConsumer<String, String> a = consumer(bootstrap, "a")) {
            a.subscribe(List.of(topic));
            pollUntil(a, null, seen, () -> a.assignment().size() == partitions, "member a owns all " + partitions + " partitions");
            Check.ok("a alone: " + a.assignment().size());
            try (KafkaConsumer<String, String> b = consumer(bootstrap, "b")) {
                b.subscribe(List.of(topic));
                pollUntil(a, b, seen, () -> a.assignment().size() + b.assignment().size() == partitions && !a.assignment().isEmpty() && !b.assignment().isEmpty(), "a and b split the partitions");
                Check.ok("split: a " + a.assignment().size() + ", b " + b.assignment().size());
                pollUntil(a, b, seen, () -> seen.size() == records, "every record read");
                a.commitSync();
                b.commitSync();
            }
            pollUntil(a, null, seen, () -> a.assignment().size() == partitions, "a owns all partitions again after b left");
            Check.ok("b left: a " + a.assignment().size());
            a.commitSync();
            var committed = a.committed(a.assignment());
            long sum = committed.values().stream().mapToLong(o -> o == null ? 0 : o.offset()).sum();
            Check.that(sum == records, "committed offsets add up to " + records + ", got " + sum);
        }
        Check.ok("read " + seen.size() + " distinct records");
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String name) {
        Properties p = Check.props(bootstrap, "java-group-" + name);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "java-group");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private static void pollUntil(KafkaConsumer<String, String> a, KafkaConsumer<String, String> b, Map<String, Integer> seen, java.util.function.BooleanSupplier done, String what) {
        long deadline = System.currentTimeMillis() + 90_000;
        while (!done.getAsBoolean()) {
            Check.that(System.currentTimeMillis() < deadline, what + " within 90 s");
            for (KafkaConsumer<String, String> c : b == null ? List.of(a) : List.of(a, b)) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.merge(r.key(), 1, Integer::sum);
                try {
                    if (!c.assignment().isEmpty()) c.commitSync();
                } catch (org.apache.kafka.common.errors.RebalanceInProgressException | org.apache.kafka.clients.consumer.CommitFailedException e) {
                    // A rebalance is under way: the next poll rejoins, the next commit goes through.
                }
            }
        }
    }
}
