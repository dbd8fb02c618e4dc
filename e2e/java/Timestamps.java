import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads partition 0 of a topic from the beginning and says which timestamp types and
 * timestamps its records carry, as a Java consumer sees them.
 * Usage: Timestamps BOOTSTRAP TOPIC RECORDS
 */
public class Timestamps {
    public static void main(String[] args) throws Exception {
        TopicPartition tp = new TopicPartition(args[1], 0);
        int records = Integer.parseInt(args[2]);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Check.props(args[0], "java-timestamps"), new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Set<String> types = new TreeSet<>();
            Set<Long> stamps = new TreeSet<>();
            int n = 0;
            long deadline = System.currentTimeMillis() + 30_000;
            while (n < records && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
                    n++;
                    types.add(r.timestampType().name);
                    stamps.add(r.timestamp());
                }
            }
            Check.that(n == records, "read " + n + " of " + records);
            Check.ok("types " + String.join(",", types) + " timestamps " + stamps);
        }
    }
}
