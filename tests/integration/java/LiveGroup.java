import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Java KafkaConsumers of one classic consumer group, all in this JVM, driven by JSON lines.
 *
 * <p>Arguments: {@code BOOTSTRAP GROUP_ID STRATEGY}, the strategy by its protocol name
 * ({@code range}, {@code roundrobin}, {@code sticky}, {@code cooperative-sticky}). Each
 * command on stdin is one JSON object; each gets exactly one JSON line on stdout
 * ({@code {"ok": false, "error": ...}} when it failed):
 *
 * <ul>
 *   <li>{@code {"op": "join", "name": "a", "topics": ["t1", "t2"]}}: start a member (its
 *       {@code client.id} is the name, so the broker's member id is {@code <name>-<uuid>});
 *   <li>{@code {"op": "leave", "name": "a"}}: close the member (it sends LeaveGroup); answered
 *       once {@code close()} has returned;
 *   <li>{@code {"op": "settle", "partitions": 15, "quiet_ms": 1500, "timeout_ms": 60000}}: wait
 *       until the group has settled, then report every member's member id, generation and
 *       partitions, every assignment each member received so far (per generation), every
 *       moment a member was given a partition another member still held, and the broker's
 *       own description of the group;
 *   <li>{@code {"op": "quit"}}: close every member and exit.
 * </ul>
 *
 * <p>A KafkaConsumer is not thread-safe, so each member has its own thread that alone calls
 * it: it polls, and after every poll publishes its member id, generation and assignment.
 * The rebalance listener runs in that thread too, inside {@code poll}; it records each
 * change under one lock shared by all members, so "who holds what" is one consistent view
 * at the instant of every change. Logs go to the file named by {@code -Dlive.log} (see
 * log4j2.properties), never to stdout, which carries the answers only.
 */
public final class LiveGroup {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Comparator<TopicPartition> ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final Duration POLL = Duration.ofMillis(100);

    private final String bootstrap;
    private final String groupId;
    private final String strategy;
    private final Class<? extends ConsumerPartitionAssignor> assignor;
    private final Object lock = new Object();
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final ArrayNode events = JSON.createArrayNode();
    private final ArrayNode overlaps = JSON.createArrayNode();
    private final Admin admin;
    private long sequence = 0;

    private LiveGroup(String bootstrap, String groupId, String strategy) {
        this.bootstrap = bootstrap;
        this.groupId = groupId;
        this.strategy = strategy;
        this.assignor = assignorClass(strategy);
        try {
            String name = assignor.getDeclaredConstructor().newInstance().name();
            if (!name.equals(strategy)) throw new IllegalStateException(assignor + " is named " + name);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "live-group-admin");
        this.admin = Admin.create(props);
    }

    private static Class<? extends ConsumerPartitionAssignor> assignorClass(String strategy) {
        switch (strategy) {
            case "range": return RangeAssignor.class;
            case "roundrobin": return RoundRobinAssignor.class;
            case "sticky": return StickyAssignor.class;
            case "cooperative-sticky": return CooperativeStickyAssignor.class;
            default: throw new IllegalArgumentException("unknown strategy " + strategy);
        }
    }

    /** One consumer and the thread that alone calls it. */
    private final class Member implements Runnable, ConsumerRebalanceListener {
        final String name;
        final List<String> topics;
        final Thread thread;
        volatile boolean leaving = false;
        volatile Throwable failure = null;
        KafkaConsumer<byte[], byte[]> consumer;
        // Published after each poll, read under `lock`.
        String memberId = "";
        int generation = -1;
        List<TopicPartition> assignment = List.of();
        // What the rebalance listener says this member holds, under `lock`.
        final Set<TopicPartition> held = new HashSet<>();

        Member(String name, List<String> topics) {
            this.name = name;
            this.topics = topics;
            this.thread = new Thread(this, "member-" + name);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                consumer = new KafkaConsumer<>(consumerProperties(name));
                String configured = consumer.groupMetadata().groupId();
                if (!configured.equals(groupId)) throw new IllegalStateException("group " + configured);
                consumer.subscribe(topics, this);
                while (!leaving) {
                    consumer.poll(POLL);
                    publish();
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                if (consumer != null) {
                    try {
                        consumer.close(CloseOptions.timeout(Duration.ofSeconds(20)));
                    } catch (Throwable t) {
                        if (failure == null) failure = t;
                    }
                }
            }
        }

        private void publish() {
            ConsumerGroupMetadata metadata = consumer.groupMetadata();
            List<TopicPartition> now = sorted(consumer.assignment());
            synchronized (lock) {
                memberId = metadata.memberId();
                generation = metadata.generationId();
                assignment = now;
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            record("revoked", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            record("lost", partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            record("assigned", partitions);
        }

        private void record(String kind, Collection<TopicPartition> changed) {
            // Inside poll (or close), on this member's thread: the consumer may be asked.
            ConsumerGroupMetadata metadata = consumer.groupMetadata();
            List<TopicPartition> full = sorted(consumer.assignment());
            synchronized (lock) {
                if (kind.equals("assigned")) {
                    for (TopicPartition tp : changed) {
                        for (Member other : members.values()) {
                            if (other != this && other.held.contains(tp)) {
                                ObjectNode overlap = overlaps.addObject();
                                overlap.put("partition", tp.topic() + "-" + tp.partition());
                                overlap.put("given_to", name);
                                overlap.put("still_held_by", other.name);
                                overlap.put("generation", metadata.generationId());
                            }
                        }
                    }
                    held.addAll(changed);
                } else {
                    held.removeAll(changed);
                }
                ObjectNode event = events.addObject();
                event.put("seq", sequence++);
                event.put("member", name);
                event.put("member_id", metadata.memberId());
                event.put("generation", metadata.generationId());
                event.put("kind", kind);
                event.set("changed", partitionsJson(sorted(changed)));
                event.set("assignment", partitionsJson(kind.equals("assigned") ? full : sorted(held)));
            }
        }
    }

    private Properties consumerProperties(String clientId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // The broker's floor for a session is 6 s (group.min.session.timeout.ms); a member
        // that leaves sends LeaveGroup, so the session only matters for one that dies.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        // Members learn of a rebalance from a heartbeat: short, so a rebalance takes < 1 s.
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "200");
        // The rebalance timeout: how long the broker waits for every member to rejoin.
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "20000");
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "300000");
        return props;
    }

    private static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        List<TopicPartition> out = new ArrayList<>(partitions);
        out.sort(ORDER);
        return out;
    }

    private static ArrayNode partitionsJson(List<TopicPartition> partitions) {
        ArrayNode array = JSON.createArrayNode();
        for (TopicPartition tp : partitions) {
            ArrayNode pair = array.addArray();
            pair.add(tp.topic());
            pair.add(tp.partition());
        }
        return array;
    }

    // -- commands ---------------------------------------------------------------------

    private ObjectNode join(JsonNode command) {
        String name = command.get("name").asText();
        List<String> topics = new ArrayList<>();
        command.get("topics").forEach(t -> topics.add(t.asText()));
        Member member = new Member(name, topics);
        synchronized (lock) {
            if (members.containsKey(name)) throw new IllegalArgumentException("member " + name + " exists");
            members.put(name, member);
        }
        member.thread.start();
        return ok();
    }

    private ObjectNode leave(JsonNode command) throws InterruptedException {
        String name = command.get("name").asText();
        Member member;
        synchronized (lock) {
            member = members.get(name);
        }
        if (member == null) throw new IllegalArgumentException("no member " + name);
        member.leaving = true;
        member.thread.join(TimeUnit.SECONDS.toMillis(30));
        if (member.thread.isAlive()) throw new IllegalStateException(name + " did not close in 30 s");
        synchronized (lock) {
            members.remove(name);
        }
        ObjectNode reply = ok();
        if (member.failure != null) reply.put("warning", String.valueOf(member.failure));
        return reply;
    }

    private ObjectNode settle(JsonNode command) throws Exception {
        int partitions = command.get("partitions").asInt();
        long quietMs = command.get("quiet_ms").asLong();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(command.get("timeout_ms").asLong());
        String last = null;
        long since = System.nanoTime();
        String why = "not checked yet";
        while (System.nanoTime() < deadline) {
            String signature;
            synchronized (lock) {
                for (Member m : members.values()) {
                    if (m.failure != null) throw new IllegalStateException(m.name + " failed: " + m.failure, m.failure);
                }
                signature = members.values().stream()
                    .map(m -> m.name + "=" + m.memberId + "@" + m.generation + m.assignment + "|" + m.held.size())
                    .reduce("", String::concat);
                why = notSettledReason(partitions);
            }
            if (!signature.equals(last)) {
                last = signature;
                since = System.nanoTime();
            } else if (why == null && System.nanoTime() - since >= TimeUnit.MILLISECONDS.toNanos(quietMs)) {
                ObjectNode broker = describe();
                why = brokerDisagrees(broker);
                if (why == null) return report(broker);
            }
            Thread.sleep(50);
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", false);
        synchronized (lock) {
            reply.put("error", "group " + groupId + " did not settle: " + why + "; last state " + last);
        }
        reply.set("events", events.deepCopy());
        return reply;
    }

    /** Why the members' own view is not a settled group yet, or null if it is. Under lock. */
    private String notSettledReason(int partitions) {
        Set<Integer> generations = new TreeSet<>();
        Set<TopicPartition> seen = new HashSet<>();
        int total = 0;
        for (Member m : members.values()) {
            if (m.memberId.isEmpty() || m.generation < 0) return m.name + " has not joined";
            generations.add(m.generation);
            if (!new HashSet<>(m.assignment).equals(m.held)) return m.name + " is between callbacks";
            seen.addAll(m.assignment);
            total += m.assignment.size();
        }
        if (generations.size() > 1) return "members in generations " + generations;
        if (total != seen.size()) return "a partition on two members";
        if (total != partitions) return total + " of " + partitions + " partitions assigned";
        return null;
    }

    private ObjectNode describe() throws Exception {
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId))
            .describedGroups().get(groupId).get(10, TimeUnit.SECONDS);
        ObjectNode out = JSON.createObjectNode();
        out.put("state", group.groupState().toString());
        out.put("type", group.type().toString());
        out.put("assignor", group.partitionAssignor());
        ObjectNode byId = out.putObject("members");
        for (MemberDescription member : group.members()) {
            byId.set(member.consumerId(), partitionsJson(sorted(member.assignment().topicPartitions())));
        }
        return out;
    }

    /** Why the broker's description differs from the members' view, or null. */
    private String brokerDisagrees(ObjectNode broker) {
        if (!broker.get("state").asText().equals(GroupState.STABLE.toString())) {
            return "broker says " + broker.get("state").asText();
        }
        synchronized (lock) {
            ObjectNode ours = JSON.createObjectNode();
            for (Member m : members.values()) ours.set(m.memberId, partitionsJson(m.assignment));
            if (!ours.equals(broker.get("members"))) return "broker's members " + broker.get("members");
        }
        return null;
    }

    private ObjectNode report(ObjectNode broker) {
        ObjectNode reply = ok();
        synchronized (lock) {
            ObjectNode byName = reply.putObject("members");
            int generation = -1;
            for (Member m : members.values()) {
                ObjectNode one = byName.putObject(m.name);
                one.put("member_id", m.memberId);
                one.put("generation", m.generation);
                ArrayNode topics = one.putArray("topics");
                m.topics.forEach(topics::add);
                one.set("partitions", partitionsJson(m.assignment));
                generation = m.generation;
            }
            reply.put("generation", generation);
            reply.set("events", events.deepCopy());
            reply.set("overlaps", overlaps.deepCopy());
        }
        reply.set("broker", broker);
        return reply;
    }

    private void quit() throws InterruptedException {
        List<Member> all;
        synchronized (lock) {
            all = new ArrayList<>(members.values());
        }
        for (Member m : all) m.leaving = true;
        for (Member m : all) m.thread.join(TimeUnit.SECONDS.toMillis(30));
        admin.close(Duration.ofSeconds(5));
    }

    private static ObjectNode ok() {
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        return reply;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LiveGroup BOOTSTRAP GROUP_ID STRATEGY");
            System.exit(2);
        }
        LiveGroup group = new LiveGroup(args[0], args[1], args[2]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            ObjectNode reply;
            String op = "?";
            try {
                JsonNode command = JSON.readTree(line);
                op = command.get("op").asText();
                switch (op) {
                    case "join": reply = group.join(command); break;
                    case "leave": reply = group.leave(command); break;
                    case "settle": reply = group.settle(command); break;
                    case "quit":
                        group.quit();
                        out.println(JSON.writeValueAsString(ok()));
                        return;
                    default: throw new IllegalArgumentException("unknown op " + op);
                }
            } catch (Exception e) {
                reply = JSON.createObjectNode();
                reply.put("ok", false);
                reply.put("error", op + ": " + e);
            }
            out.println(JSON.writeValueAsString(reply));
        }
        // stdin closed without "quit" (the test process died): leave the group anyway.
        group.quit();
    }
}
