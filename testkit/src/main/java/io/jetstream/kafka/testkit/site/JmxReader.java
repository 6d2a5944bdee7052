package io.jetstream.kafka.testkit.site;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads metrics of a running child JVM the way an operator's JMX tool would: attaches to it by pid,
 * starts its local management agent and queries MBeans. Used to check connector metrics in the real
 * Connect workers of the sites.
 */
public final class JmxReader {

    private JmxReader() {
    }

    /**
     * The sum of a numeric attribute over every MBean matching {@code pattern} in process {@code pid};
     * MBeans without the attribute count zero.
     */
    public static double sum(long pid, String pattern, String attribute) throws Exception {
        return values(pid, pattern, attribute).values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** A numeric attribute of every MBean matching {@code pattern} in process {@code pid}, by MBean name. */
    public static Map<String, Double> values(long pid, String pattern, String attribute) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
            Map<String, Double> values = new TreeMap<>();
            for (ObjectName name : names) {
                values.put(name.toString(), numeric(server, name, attribute));
            }
            return values;
        }
    }

    private static double numeric(MBeanServerConnection server, ObjectName name, String attribute) throws IOException {
        try {
            Object value = server.getAttribute(name, attribute);
            return value instanceof Number number && !Double.isNaN(number.doubleValue()) ? number.doubleValue() : 0;
        } catch (javax.management.AttributeNotFoundException e) {
            return 0;
        } catch (javax.management.JMException e) {
            throw new IOException("cannot read " + attribute + " of " + name, e);
        }
    }
}
