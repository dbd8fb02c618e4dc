import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Topic auto-creation as applications meet it.
 *   AutoCreate BOOTSTRAP create PRODUCED SUBSCRIBED: a producer's first send to a missing topic
 *     creates it and is acknowledged; a consumer subscribing to a missing topic creates it
 *     (allow.auto.create.topics, true by default); Admin never creates (describeTopics of a
 *     missing topic fails and creates nothing).
 *   AutoCreate BOOTSTRAP refused TOPIC: auto.create.topics.enable=false on the brokers: the send
 *     times out waiting for metadata and no topic appears.
 */
public class AutoCreate {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        if (args[1].equals("create")) create(bootstrap, args[2], args[3]);
        else refused(bootstrap, args[2]);
    }

    private static void create(String bootstrap, String produced, String subscribed) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Check.props(bootstrap, "java-auto-producer"), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) producer.send(new ProducerRecord<>(produced, "k" + i, "v" + i)).get();
        }
        Check.ok("5 records acknowledged on " + produced);
        Properties c = Check.props(bootstrap, "java-auto-consumer");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "java-auto");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
             Admin admin = Admin.create(Check.props(bootstrap, "java-auto-admin"))) {
            consumer.subscribe(List.of(subscribed));
            long deadline = System.currentTimeMillis() + 60_000;
            while (!admin.listTopics().names().get().contains(subscribed)) {
                Check.that(System.currentTimeMillis() < deadline, "subscribing created " + subscribed + " within 60 s");
                consumer.poll(Duration.ofMillis(200));
            }
            Check.ok("subscribing created " + subscribed);
            try {
                admin.describeTopics(List.of("java-never-created")).allTopicNames().get();
                Check.that(false, "describing a missing topic fails");
            } catch (ExecutionException e) {
                Check.that(e.getCause() instanceof UnknownTopicOrPartitionException, "UnknownTopicOrPartitionException, got " + e.getCause());
            }
            Check.that(!admin.listTopics().names().get().contains("java-never-created"), "Admin created nothing");
            Check.ok("Admin does not create");
        }
    }

    private static void refused(String bootstrap, String topic) throws Exception {
        Properties p = Check.props(bootstrap, "java-auto-refused");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
             Admin admin = Admin.create(Check.props(bootstrap, "java-auto-refused-admin"))) {
            try {
                producer.send(new ProducerRecord<>(topic, "k", "v")).get();
                Check.that(false, "a send to a missing topic fails when auto-creation is off");
            } catch (ExecutionException e) {
                Check.that(e.getCause() instanceof TimeoutException, "a metadata timeout, got " + e.getCause());
            } catch (TimeoutException e) {
                // Thrown by send() itself when metadata never arrives.
            }
            Check.that(!admin.listTopics().names().get().contains(topic), "no topic " + topic);
        }
        Check.ok("not created: " + topic);
    }
}
