import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The producer with Java's defaults (enable.idempotence=true, acks=all, five in flight), once per
 * codec, then a consumer without a group reads every partition from the beginning: every acked
 * record exactly once, at the offset it was acked at.
 * Usage: ProduceCodecs BOOTSTRAP TOPIC PARTITIONS RECORDS_PER_CODEC
 */
public class ProduceCodecs {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        int perCodec = Integer.parseInt(args[3]);
        List<String> acked = new ArrayList<>();
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            Properties p = Check.props(bootstrap, "java-codecs-" + codec);
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                Check.that(producer.metrics().keySet().stream().anyMatch(m -> m.name().equals("record-send-rate")), "a working producer");
                List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < perCodec; i++) sent.add(producer.send(new ProducerRecord<>(topic, codec + "-" + i, "value " + codec + " " + i + " " + "x".repeat(i % 50))));
                for (int i = 0; i < perCodec; i++) {
                    RecordMetadata md = sent.get(i).get();
                    acked.add(md.partition() + "@" + md.offset() + "=" + codec + "-" + i);
                }
            }
            Check.ok("produced " + perCodec + " with " + codec);
        }
        Properties c = Check.props(bootstrap, "java-codecs-consumer");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(topic, i));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Set<String> got = new HashSet<>();
            int total = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (total < acked.size() && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    total++;
                    got.add(r.partition() + "@" + r.offset() + "=" + r.key());
                }
            }
            Check.that(total == acked.size(), "read " + total + " records, " + acked.size() + " were acked");
            Check.that(got.equals(new HashSet<>(acked)), "every acked record exactly once at its offset");
        }
        Check.ok("consumed " + acked.size() + " records, each once");
    }
}
