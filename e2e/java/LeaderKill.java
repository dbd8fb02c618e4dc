import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The partition's leader is killed while an idempotent producer (Java's defaults: acks=all) sends:
 * every send succeeds, and a consumer reads each record exactly once, in the order sent. The kill
 * goes through the console's HTTP API with Java's own HttpClient, whose default (HTTP/2) offers
 * an h2c upgrade that the host must answer over HTTP/1.1.
 * Usage: LeaderKill BOOTSTRAP API_ORIGIN TOKEN TOPIC RECORDS
 */
public class LeaderKill {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String origin = args[1];
        String token = args[2];
        String topic = args[3];
        int records = Integer.parseInt(args[4]);
        TopicPartition tp = new TopicPartition(topic, 0);
        int leader;
        try (Admin admin = Admin.create(Check.props(bootstrap, "java-kill-admin"))) {
            leader = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).leader().id();
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Check.props(bootstrap, "java-kill-producer"), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, "k", Integer.toString(i))));
                if (i == records / 3) {
                    for (Future<RecordMetadata> f : sent) f.get();
                    kill(origin, token, leader);
                    Check.ok("killed leader " + leader + " after " + (i + 1) + " sends");
                }
                if (i % 100 == 99) Thread.sleep(20);
            }
            for (Future<RecordMetadata> f : sent) f.get();
        }
        Check.ok("every send acknowledged");
        Properties c = Check.props(bootstrap, "java-kill-consumer");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<Integer> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            while (got.size() < records && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) got.add(Integer.parseInt(r.value()));
            }
            Check.that(got.size() == records, "read " + got.size() + " of " + records + " records");
            for (int i = 0; i < records; i++) Check.that(got.get(i) == i, "record " + i + " at offset " + i + ", found " + got.get(i));
        }
        Check.ok("nothing lost, nothing twice: " + records + " in order");
    }

    /** POST /api/brokers.kill with Java's default HttpClient (HTTP/2 preferred: an h2c upgrade offer over plain HTTP). */
    private static void kill(String origin, String token, int brokerId) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest req = HttpRequest.newBuilder(URI.create(origin + "/api/brokers.kill"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"brokerId\":" + brokerId + "}"))
            .build();
        HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
        Check.that(res.statusCode() == 200, "brokers.kill answered " + res.statusCode() + " over " + res.version() + ": " + res.body());
        Check.that(res.body().contains("\"ok\":true"), "brokers.kill succeeded: " + res.body());
    }
}
