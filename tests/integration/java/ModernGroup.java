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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Members of one consumer-protocol (KIP-848) or share (KIP-932) group, in this JVM, and
 * Kafka's Admin view of any such group, driven by JSON lines.
 *
 * <p>Arguments: {@code BOOTSTRAP GROUP_ID KIND ASSIGNOR}: KIND {@code consumer} runs
 * KafkaConsumers with {@code group.protocol=consumer} and {@code group.remote.assignor=ASSIGNOR};
 * KIND {@code share} runs KafkaShareConsumers (the broker's share assignor, ASSIGNOR is only
 * checked against the group's). Each command is one JSON object on stdin and gets one JSON
 * line on stdout ({@code {"ok": false, "error": ...}} when it failed):
 *
 * <ul>
 *   <li>{@code {"op": "join", "name": "a", "topics": ["t1"]}}: start a member whose
 *       {@code client.id} is the name;
 *   <li>{@code {"op": "leave", "name": "a"}}: close the member (it leaves the group);
 *   <li>{@code {"op": "describe"}}: the group as Admin describes it (state, epochs, each
 *       member's client id, member id, assignment and, for consumer groups, target
 *       assignment), plus each local consumer's own {@code assignment()};
 *   <li>{@code {"op": "topic_ids", "topics": [...]}}: each topic's id as Admin reports it;
 *   <li>{@code {"op": "quit"}}: close every member and exit.
 * </ul>
 *
 * <p>Each member has its own thread, the only one that calls its consumer: it polls and
 * publishes its own view after every poll. Logs go to {@code -Dlive.log}, never to stdout.
 */
public final class ModernGroup {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Comparator<TopicPartition> ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final Duration POLL = Duration.ofMillis(100);

    private final String bootstrap;
    private final String groupId;
    private final boolean share;
    private final String assignor;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final Admin admin;

    private ModernGroup(String bootstrap, String groupId, String kind, String assignor) {
        if (!kind.equals("consumer") && !kind.equals("share")) {
            throw new IllegalArgumentException("unknown kind " + kind);
        }
        this.bootstrap = bootstrap;
        this.groupId = groupId;
        this.share = kind.equals("share");
        this.assignor = assignor;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "modern-group-admin");
        this.admin = Admin.create(props);
    }

    /** One member and the thread that alone calls its consumer. */
    private final class Member implements Runnable {
        final String name;
        final List<String> topics;
        final Thread thread;
        volatile boolean leaving = false;
        volatile Throwable failure = null;
        volatile List<TopicPartition> assignment = List.of();

        Member(String name, List<String> topics) {
            this.name = name;
            this.topics = topics;
            this.thread = new Thread(this, "member-" + name);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                if (share) runShare(); else runConsumer();
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void runConsumer() {
            Properties props = common(name);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(topics);
                while (!leaving) {
                    consumer.poll(POLL);
                    assignment = sorted(consumer.assignment());
                }
            }
        }

        private void runShare() {
            try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(common(name))) {
                consumer.subscribe(topics);
                while (!leaving) consumer.poll(POLL);
            }
        }
    }

    private Properties common(String clientId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        // Subscribed topics appear while the members run: find them within a second.
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "1000");
        return props;
    }

    private static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        List<TopicPartition> out = new ArrayList<>(partitions);
        out.sort(ORDER);
        return out;
    }

    private static ArrayNode partitionsJson(Collection<TopicPartition> partitions) {
        ArrayNode array = JSON.createArrayNode();
        for (TopicPartition tp : sorted(partitions)) {
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
        if (members.containsKey(name)) throw new IllegalArgumentException("member " + name + " exists");
        Member member = new Member(name, topics);
        members.put(name, member);
        member.thread.start();
        return ok();
    }

    private ObjectNode leave(JsonNode command) throws InterruptedException {
        String name = command.get("name").asText();
        Member member = members.remove(name);
        if (member == null) throw new IllegalArgumentException("no member " + name);
        member.leaving = true;
        member.thread.join(TimeUnit.SECONDS.toMillis(30));
        if (member.thread.isAlive()) throw new IllegalStateException(name + " did not close in 30 s");
        if (member.failure != null) throw new IllegalStateException(name + " failed: " + member.failure);
        return ok();
    }

    private ObjectNode describe() throws Exception {
        for (Member m : members.values()) {
            if (m.failure != null) throw new IllegalStateException(m.name + " failed: " + m.failure, m.failure);
        }
        ObjectNode reply = ok();
        ArrayNode described = reply.putArray("members");
        try {
            if (share) {
                ShareGroupDescription group = admin.describeShareGroups(List.of(groupId))
                    .describedGroups().get(groupId).get(10, TimeUnit.SECONDS);
                reply.put("state", group.groupState().toString());
                reply.put("group_epoch", group.groupEpoch());
                reply.put("assignment_epoch", group.targetAssignmentEpoch());
                for (ShareMemberDescription m : group.members()) {
                    ObjectNode one = described.addObject();
                    one.put("client_id", m.clientId());
                    one.put("member_id", m.consumerId());
                    one.put("epoch", m.memberEpoch());
                    one.set("assignment", partitionsJson(m.assignment().topicPartitions()));
                }
            } else {
                ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId))
                    .describedGroups().get(groupId).get(10, TimeUnit.SECONDS);
                reply.put("state", group.groupState().toString());
                reply.put("type", group.type().toString());
                reply.put("assignor", group.partitionAssignor());
                reply.put("group_epoch", group.groupEpoch().orElse(-1));
                reply.put("assignment_epoch", group.targetAssignmentEpoch().orElse(-1));
                for (MemberDescription m : group.members()) {
                    ObjectNode one = described.addObject();
                    one.put("client_id", m.clientId());
                    one.put("member_id", m.consumerId());
                    one.put("epoch", m.memberEpoch().orElse(-1));
                    one.set("assignment", partitionsJson(m.assignment().topicPartitions()));
                    if (m.targetAssignment().isPresent()) {
                        one.set("target", partitionsJson(m.targetAssignment().get().topicPartitions()));
                    }
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
            reply.put("state", "NOT_FOUND");
        }
        ObjectNode own = reply.putObject("own");
        for (Member m : members.values()) {
            if (!share) own.set(m.name, partitionsJson(m.assignment));
        }
        return reply;
    }

    private ObjectNode topicIds(JsonNode command) throws Exception {
        List<String> topics = new ArrayList<>();
        command.get("topics").forEach(t -> topics.add(t.asText()));
        Map<String, TopicDescription> described =
            admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS);
        ObjectNode reply = ok();
        ObjectNode ids = reply.putObject("ids");
        for (String topic : topics) ids.put(topic, described.get(topic).topicId().toString());
        return reply;
    }

    private void quit() throws InterruptedException {
        for (Member m : members.values()) m.leaving = true;
        for (Member m : members.values()) m.thread.join(TimeUnit.SECONDS.toMillis(30));
        admin.close(Duration.ofSeconds(5));
    }

    private static ObjectNode ok() {
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        return reply;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: ModernGroup BOOTSTRAP GROUP_ID consumer|share ASSIGNOR");
            System.exit(2);
        }
        ModernGroup group = new ModernGroup(args[0], args[1], args[2], args[3]);
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
                    case "describe": reply = group.describe(); break;
                    case "topic_ids": reply = group.topicIds(command); break;
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
        group.quit();  // stdin closed without "quit" (the test process died)
    }
}
