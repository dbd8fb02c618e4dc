import java.util.Properties;

import org.apache.kafka.clients.CommonClientConfigs;

/**
 * What the Java test programs share: client properties as an application would write them, and
 * a check that ends the program with a message naming what did not hold (exit 1). Each program
 * prints "OK <what held>" lines that the e2e test reads.
 */
final class Check {
    private Check() {}

    static Properties props(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
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
}
