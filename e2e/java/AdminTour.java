import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's Admin client as an operator's tool uses it: cluster, topics (validate-only, an existing
 * name), configs with synonyms (topic and broker, incremental and legacy), partitions, a
 * reassignment and a preferred election, log dirs with their disk space, deleteRecords, features.
 * Usage: AdminTour BOOTSTRAP
 */
public class AdminTour {
    private static final String TOPIC = "java-admin";

    public static void main(String[] args) throws Exception {
        try (Admin admin = Admin.create(Check.props(args[0], "java-admin-tour"))) {
            DescribeClusterResult cluster = admin.describeCluster();
            Collection<Node> nodes = cluster.nodes().get();
            Check.that(nodes.size() == 3, "three brokers, got " + nodes);
            Check.that(cluster.controller().get() != null && cluster.clusterId().get() != null, "a controller and a cluster id");
            Check.ok("cluster " + cluster.clusterId().get() + " brokers " + nodes.size());

            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3)), new CreateTopicsOptions().validateOnly(true)).all().get();
            Check.that(!admin.listTopics().names().get().contains(TOPIC), "validate-only created nothing");
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 3))).all().get();
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
                Check.that(false, "creating an existing topic fails");
            } catch (ExecutionException e) {
                Check.that(e.getCause() instanceof TopicExistsException, "TopicExistsException, got " + e.getCause());
            }
            TopicDescription d = describe(admin);
            Check.that(d.partitions().size() == 3 && d.partitions().get(0).isr().size() == 3, "3 partitions in sync: " + d);
            Check.ok("topics");

            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            ConfigEntry retention = topicConfigs(admin, topic).get("retention.ms");
            // Kafka lists the first broker synonym's layers only: nothing sets log.retention.ms here.
            Check.that(retention.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG && retention.synonyms().isEmpty(), "retention.ms from defaults without synonyms: " + retention);
            Check.that("".equals(topicConfigs(admin, topic).get("leader.replication.throttled.replicas").value()), "an empty list is \"\"");
            admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all().get();
            retention = topicConfigs(admin, topic).get("retention.ms");
            Check.that("3600000".equals(retention.value()) && retention.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, "retention.ms set on the topic: " + retention);
            Check.ok("topic configs");

            ConfigResource broker2 = new ConfigResource(ConfigResource.Type.BROKER, "2");
            Config b2 = admin.describeConfigs(List.of(broker2)).all().get().get(broker2);
            Check.that("2".equals(b2.get("node.id").value()) && "2".equals(b2.get("broker.id").value()), "broker 2 reports node.id and broker.id 2");
            alterLegacy(admin, broker2, new Config(List.of(new ConfigEntry("log.cleaner.threads", "2"), new ConfigEntry("custom.e2e.setting", "x"))));
            ConfigEntry threads = admin.describeConfigs(List.of(broker2)).all().get().get(broker2).get("log.cleaner.threads");
            Check.that("2".equals(threads.value()) && threads.source() == ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG, "legacy AlterConfigs on broker 2: " + threads);
            alterLegacy(admin, broker2, new Config(List.of()));
            Check.ok("broker configs");

            admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(4))).all().get();
            Check.that(describe(admin).partitions().size() == 4, "4 partitions");
            Check.ok("partitions");

            TopicPartition p0 = new TopicPartition(TOPIC, 0);
            List<Integer> replicas = describe(admin).partitions().get(0).replicas().stream().map(Node::id).toList();
            List<Integer> reversed = List.of(replicas.get(2), replicas.get(1), replicas.get(0));
            admin.alterPartitionReassignments(Map.of(p0, Optional.of(new NewPartitionReassignment(reversed)))).all().get();
            long deadline = System.currentTimeMillis() + 30_000;
            while (!admin.listPartitionReassignments().reassignments().get().isEmpty()) {
                Check.that(System.currentTimeMillis() < deadline, "the reassignment ends within 30 s");
                Thread.sleep(200);
            }
            Check.that(describe(admin).partitions().get(0).replicas().stream().map(Node::id).toList().equals(reversed), "replicas reordered to " + reversed);
            admin.electLeaders(ElectionType.PREFERRED, Set.of(p0)).partitions().get();
            deadline = System.currentTimeMillis() + 30_000;
            while (describe(admin).partitions().get(0).leader().id() != reversed.get(0)) {
                Check.that(System.currentTimeMillis() < deadline, "the preferred replica leads within 30 s");
                Thread.sleep(200);
            }
            Check.ok("reassignment and preferred election: leader " + reversed.get(0));

            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(List.of(1, 2, 3)).allDescriptions().get();
            for (int id = 1; id <= 3; id++) {
                LogDirDescription dir = dirs.get(id).values().iterator().next();
                Check.that(dir.replicaInfos().containsKey(p0), "broker " + id + " holds " + p0);
                Check.that(dir.totalBytes().isPresent() && dir.totalBytes().getAsLong() > 0 && dir.usableBytes().isPresent(), "broker " + id + " reports its disk: " + dir);
            }
            Check.ok("log dirs with total and usable bytes");

            TopicPartition p1 = new TopicPartition(TOPIC, 1);
            var producerProps = Check.props(args[0], "java-admin-producer");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>(TOPIC, 1, "k" + i, "v" + i)).get();
            }
            long low = admin.deleteRecords(Map.of(p1, RecordsToDelete.beforeOffset(5))).lowWatermarks().get(p1).get().lowWatermark();
            Check.that(low == 5, "low watermark 5 after deleteRecords, got " + low);
            Check.ok("deleteRecords");

            var features = admin.describeFeatures().featureMetadata().get().finalizedFeatures();
            Check.that(features.containsKey("metadata.version"), "metadata.version is finalized: " + features);
            Check.ok("features " + features.keySet());

            admin.deleteTopics(List.of(TOPIC)).all().get();
            deadline = System.currentTimeMillis() + 30_000;
            while (admin.listTopics().names().get().contains(TOPIC)) {
                Check.that(System.currentTimeMillis() < deadline, "the topic is gone within 30 s");
                Thread.sleep(200);
            }
            Check.ok("deleteTopics");
        }
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
    }

    private static Config topicConfigs(Admin admin, ConfigResource topic) throws Exception {
        return admin.describeConfigs(List.of(topic), new DescribeConfigsOptions().includeSynonyms(true)).all().get(Duration.ofSeconds(30).toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS).get(topic);
    }

    @SuppressWarnings("deprecation")
    private static void alterLegacy(Admin admin, ConfigResource resource, Config config) throws Exception {
        admin.alterConfigs(Map.of(resource, config)).all().get();
    }
}
