import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's Admin client on a cluster with SASL and the StandardAuthorizer: ACL bindings (create,
 * describe with a MATCH filter, delete), SCRAM credentials (a user created through the API logs
 * in with SCRAM at once and is refused once deleted) and client quotas (alter, describe), each
 * with the exception Kafka's client raises for a refused request.
 * Usage: SecurityTour BOOTSTRAP ADMIN_PASSWORD
 */
public class SecurityTour {
    static Properties sasl(String bootstrap, String mechanism, String user, String password, String clientId) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule" : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user + "\" password=\"" + password + "\";");
        return p;
    }

    static void that(boolean condition, String what) {
        if (!condition) {
            System.out.println("FAILED " + what);
            System.out.flush();
            System.exit(1);
        }
    }

    static void ok(String what) {
        System.out.println("OK " + what);
        System.out.flush();
    }

    static Throwable causeOf(Runnable r) {
        try {
            r.run();
            return null;
        } catch (RuntimeException e) {
            return e.getCause() != null ? e.getCause() : e;
        }
    }

    static <T> T get(org.apache.kafka.common.KafkaFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        } catch (ExecutionException e) {
            throw new RuntimeException(e.getCause());
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        try (Admin admin = Admin.create(sasl(bootstrap, "SCRAM-SHA-512", "admin", args[1], "java-security-admin"))) {
            get(admin.createTopics(List.of(new NewTopic("java-secured", 1, (short) 3))).all());

            // ACLs: a prefixed binding, a literal one, a MATCH filter that finds both, a delete.
            AclBinding write = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "java-", PatternType.PREFIXED), new AccessControlEntry("User:dave", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
            AclBinding describe = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "java-secured", PatternType.LITERAL), new AccessControlEntry("User:dave", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW));
            get(admin.createAcls(List.of(write, describe)).all());
            Collection<AclBinding> found = get(admin.describeAcls(new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, "java-secured", PatternType.MATCH), AccessControlEntryFilter.ANY)).values());
            that(found.size() == 2 && found.contains(write) && found.contains(describe), "describeAcls MATCH finds the prefixed and the literal binding: " + found);
            ok("acls created and described (MATCH)");
            Throwable badPrincipal = causeOf(() -> get(admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "x", PatternType.LITERAL), new AccessControlEntry("dave", "*", AclOperation.READ, AclPermissionType.ALLOW)))).all()));
            that(badPrincipal instanceof InvalidRequestException, "a principal without a type is INVALID_REQUEST: " + badPrincipal);
            Throwable badCluster = causeOf(() -> get(admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "my-cluster", PatternType.LITERAL), new AccessControlEntry("User:dave", "*", AclOperation.ALTER, AclPermissionType.ALLOW)))).all()));
            that(badCluster instanceof InvalidRequestException && badCluster.getMessage().contains("kafka-cluster"), "a cluster not named kafka-cluster is INVALID_REQUEST: " + badCluster);
            ok("hostile bindings refused with InvalidRequestException");

            // SCRAM: a user created through the Admin API logs in at once.
            get(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "dave-secret"))).all());
            Map<String, UserScramCredentialsDescription> users = get(admin.describeUserScramCredentials(List.of("dave")).all());
            that(users.get("dave").credentialInfos().equals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192))), "dave's credential: " + users);
            ok("scram credential created and described");
            Throwable tooFew = causeOf(() -> get(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("erin", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), "x"))).all()));
            that(tooFew instanceof UnacceptableCredentialException, "too few iterations: " + tooFew);
            Throwable unknown = causeOf(() -> get(admin.describeUserScramCredentials(List.of("nobody")).description("nobody")));
            that(unknown instanceof ResourceNotFoundException, "an unknown user: " + unknown);
            ok("scram refusals");
            Properties daveProps = sasl(bootstrap, "SCRAM-SHA-256", "dave", "dave-secret", "java-dave");
            daveProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            daveProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            daveProps.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
            try (KafkaProducer<String, String> dave = new KafkaProducer<>(daveProps)) {
                dave.send(new ProducerRecord<>("java-secured", "k", "written by dave")).get();
                ok("dave logged in with SCRAM-SHA-256 and wrote");
            }
            get(admin.createTopics(List.of(new NewTopic("elsewhere", 1, (short) 3))).all());
            try (KafkaProducer<String, String> dave = new KafkaProducer<>(daveProps)) {
                Throwable denied = causeOf(() -> {
                    try {
                        dave.send(new ProducerRecord<>("elsewhere", "k", "v")).get();
                    } catch (Exception e) {
                        throw new RuntimeException(e instanceof ExecutionException ? e.getCause() : e);
                    }
                });
                that(denied instanceof TopicAuthorizationException, "writing where no binding allows: " + denied);
                ok("dave refused on a topic no binding names");
            }
            get(admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("dave", ScramMechanism.SCRAM_SHA_256))).all());
            try (KafkaProducer<String, String> dave = new KafkaProducer<>(daveProps)) {
                Throwable refused = causeOf(() -> {
                    try {
                        dave.send(new ProducerRecord<>("java-secured", "k", "v")).get();
                    } catch (Exception e) {
                        throw new RuntimeException(e instanceof ExecutionException ? e.getCause() : e);
                    }
                });
                that(refused instanceof SaslAuthenticationException, "a deleted user cannot log in: " + refused);
                ok("dave refused once deleted");
            }

            // Client quotas.
            ClientQuotaEntity daveEntity = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "dave"));
            get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(daveEntity, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0), new ClientQuotaAlteration.Op("request_percentage", 50.0))))).all());
            Map<ClientQuotaEntity, Map<String, Double>> quotas = get(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "dave")))).entities());
            that(quotas.equals(Map.of(daveEntity, Map.of("producer_byte_rate", 1048576.0, "request_percentage", 50.0))), "dave's quotas: " + quotas);
            ok("quotas altered and described");
            Throwable badKey = causeOf(() -> get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(daveEntity, List.of(new ClientQuotaAlteration.Op("no_such_quota", 1.0))))).all()));
            that(badKey instanceof InvalidRequestException, "an unknown quota key: " + badKey);
            Throwable badType = causeOf(() -> get(admin.describeClientQuotas(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType("group")))).entities()));
            that(badType instanceof UnsupportedVersionException, "an unknown entity type: " + badType);
            ok("hostile quota requests refused");

            get(admin.deleteAcls(List.of(new AclBindingFilter(new ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY), new AccessControlEntryFilter("User:dave", null, AclOperation.ANY, AclPermissionType.ANY)))).all());
            that(get(admin.describeAcls(AclBindingFilter.ANY).values()).isEmpty(), "every binding deleted");
            ok("acls deleted");
        }
    }
}
