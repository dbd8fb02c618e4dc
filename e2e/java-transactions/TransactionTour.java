import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's transactional producer, read_committed consumer and transaction Admin calls against a
 * local cluster: commit, abort, sendOffsetsToTransaction, fencing by a second producer of the
 * same transactional.id, then describeTransactions, listTransactions and describeProducers.
 * Prints "OK <step>" per step, or "FAILED <step>: <why>" and exits 1.
 * Usage: TransactionTour BOOTSTRAP
 */
public class TransactionTour {
    static final String TOPIC = "java-payments";
    static final String TXN_ID = "java-payments-tx";
    static final String GROUP = "java-processor";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    static void check(boolean ok, String step, String why) {
        if (!ok) {
            System.out.println("FAILED " + step + ": " + why);
            System.exit(1);
        }
        System.out.println("OK " + step);
    }

    static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TXN_ID);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        return new KafkaProducer<>(p);
    }

    static List<String> readAll(String bootstrap, String isolation, int expected) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(TP));
            c.seekToBeginning(List.of(TP));
            long deadline = System.currentTimeMillis() + 30_000;
            // Poll until the expected count came, then a little longer: anything extra would show.
            long quietUntil = Long.MAX_VALUE;
            while (System.currentTimeMillis() < Math.min(deadline, quietUntil)) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) values.add(r.value());
                if (values.size() >= expected && quietUntil == Long.MAX_VALUE) quietUntil = System.currentTimeMillis() + 1_500;
            }
        }
        return values;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Properties ap = new Properties();
        ap.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get();

            KafkaProducer<String, String> p1 = producer(bootstrap);
            p1.initTransactions();
            p1.beginTransaction();
            p1.send(new ProducerRecord<>(TOPIC, 0, "k", "c1"));
            p1.send(new ProducerRecord<>(TOPIC, 0, "k", "c2"));
            p1.commitTransaction();
            p1.beginTransaction();
            p1.send(new ProducerRecord<>(TOPIC, 0, "k", "a1")).get();
            p1.sendOffsetsToTransaction(Map.of(TP, new OffsetAndMetadata(1)), new ConsumerGroupMetadata(GROUP));
            p1.abortTransaction();
            p1.beginTransaction();
            p1.send(new ProducerRecord<>(TOPIC, 0, "k", "c3"));
            p1.sendOffsetsToTransaction(Map.of(TP, new OffsetAndMetadata(2)), new ConsumerGroupMetadata(GROUP));
            p1.commitTransaction();
            System.out.println("OK committed, aborted and committed");

            List<String> committed = readAll(bootstrap, "read_committed", 3);
            check(committed.equals(List.of("c1", "c2", "c3")), "read_committed sees the committed records only", committed.toString());
            List<String> all = readAll(bootstrap, "read_uncommitted", 4);
            check(all.equals(List.of("c1", "c2", "a1", "c3")), "read_uncommitted sees the aborted record too", all.toString());

            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
            check(offsets.get(TP) != null && offsets.get(TP).offset() == 2, "the committed transaction's offsets are the group's", String.valueOf(offsets));

            // A second producer with the same transactional.id fences the first.
            KafkaProducer<String, String> p2 = producer(bootstrap);
            p1.beginTransaction();
            p1.send(new ProducerRecord<>(TOPIC, 0, "k", "zombie"));
            p2.initTransactions();
            String fenced = "not fenced";
            try {
                p1.commitTransaction();
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                fenced = e.getClass().getSimpleName();
            } catch (KafkaException e) {
                fenced = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            check(fenced.equals("ProducerFencedException") || fenced.equals("InvalidProducerEpochException"), "the first producer is fenced", fenced);
            p1.close(Duration.ofSeconds(5));
            p2.beginTransaction();
            p2.send(new ProducerRecord<>(TOPIC, 0, "k", "c4"));
            p2.commitTransaction();
            List<String> after = readAll(bootstrap, "read_committed", 4);
            check(after.equals(List.of("c1", "c2", "c3", "c4")), "the zombie's record is never committed", after.toString());

            TransactionDescription d = admin.describeTransactions(List.of(TXN_ID)).description(TXN_ID).get();
            check(d.state().toString().equals("CompleteCommit") && d.producerEpoch() >= 1 && d.topicPartitions().isEmpty(), "describeTransactions", d.toString());
            Collection<TransactionListing> listed = admin.listTransactions().all().get();
            check(listed.stream().anyMatch(t -> t.transactionalId().equals(TXN_ID) && t.producerId() == d.producerId()), "listTransactions", listed.toString());
            List<ProducerState> producers = admin.describeProducers(List.of(TP)).partitionResult(TP).get().activeProducers();
            check(producers.stream().anyMatch(s -> s.producerId() == d.producerId() && s.currentTransactionStartOffset().isEmpty()), "describeProducers", producers.toString());
            p2.close(Duration.ofSeconds(5));
        }
    }
}
