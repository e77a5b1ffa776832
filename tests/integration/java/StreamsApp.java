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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;

/**
 * One Kafka Streams application on the streams rebalance protocol (KIP-1071,
 * {@code group.protocol=streams}): several instances of it in this JVM, and Kafka's Admin view
 * of its streams group, driven by JSON lines.
 *
 * <p>Arguments: {@code BOOTSTRAP APPLICATION_ID INPUT_TOPIC STATE_ROOT STANDBY_REPLICAS}. The
 * topology has two subtopologies: {@code 0} reads INPUT_TOPIC and re-keys each record into a
 * repartition topic (stateless); {@code 1} reads the repartition topic and counts per key in a
 * logged in-memory store (stateful: a changelog topic). The broker creates both internal topics
 * with INPUT_TOPIC's partition count. Before the first instance starts, the group's
 * {@code streams.num.standby.replicas} is set to STANDBY_REPLICAS (a group config: on the streams
 * protocol the broker, not the client, decides the standby count).
 *
 * <p>Each command is one JSON object on stdin and gets one JSON line on stdout
 * ({@code {"ok": false, "error": ...}} when it failed):
 *
 * <ul>
 *   <li>{@code {"op": "start", "name": "i1", "threads": 2}}: start an instance whose
 *       {@code client.id} is the name, with its own state directory (so its own process id);
 *   <li>{@code {"op": "stop", "name": "i1"}}: close the instance, its threads leaving the group;
 *   <li>{@code {"op": "describe"}}: the group as Admin describes it: state, epochs,
 *       subtopologies with their topics' partition counts, and each member's member id, client
 *       id, process id, epoch, current and target assignment and reported task offsets; plus
 *       each local instance's {@code KafkaStreams.State};
 *   <li>{@code {"op": "quit"}}: close every instance and exit.
 * </ul>
 *
 * <p>Logs go to {@code -Dlive.log}, never to stdout.
 */
public final class StreamsApp {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STORE = "counts";

    private final String bootstrap;
    private final String applicationId;
    private final String inputTopic;
    private final String stateRoot;
    private final Admin admin;
    private final Map<String, KafkaStreams> instances = new LinkedHashMap<>();

    private StreamsApp(String bootstrap, String applicationId, String inputTopic, String stateRoot) {
        this.bootstrap = bootstrap;
        this.applicationId = applicationId;
        this.inputTopic = inputTopic;
        this.stateRoot = stateRoot;
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        this.admin = Admin.create(props);
    }

    public static void main(String[] args) throws Exception {
        StreamsApp app = new StreamsApp(args[0], args[1], args[2], args[3]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            app.setStandbyReplicas(Integer.parseInt(args[4]));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                ObjectNode reply;
                JsonNode command = JSON.readTree(line);
                String op = command.path("op").asText();
                try {
                    reply = app.handle(op, command);
                } catch (Exception error) {
                    reply = JSON.createObjectNode();
                    reply.put("ok", false);
                    reply.put("error", error.toString());
                }
                out.println(JSON.writeValueAsString(reply));
                if (op.equals("quit")) {
                    break;
                }
            }
        } finally {
            app.closeAll();
        }
    }

    private void setStandbyReplicas(int standbys) throws Exception {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, applicationId);
        AlterConfigOp set = new AlterConfigOp(
            new ConfigEntry("streams.num.standby.replicas", Integer.toString(standbys)),
            AlterConfigOp.OpType.SET);
        admin.incrementalAlterConfigs(Map.of(group, List.of(set))).all().get(30, TimeUnit.SECONDS);
    }

    private ObjectNode handle(String op, JsonNode command) throws Exception {
        ObjectNode reply = JSON.createObjectNode();
        switch (op) {
            case "start" -> start(command.path("name").asText(), command.path("threads").asInt(1));
            case "stop" -> stop(command.path("name").asText());
            case "describe" -> describe(reply);
            case "quit" -> closeAll();
            default -> throw new IllegalArgumentException("unknown op " + op);
        }
        reply.put("ok", true);
        return reply;
    }

    private Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(inputTopic, Consumed.with(Serdes.String(), Serdes.String()))
            .selectKey((key, value) -> value)
            .groupByKey()
            .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore(STORE))
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()));
        return builder.build();
    }

    private void start(String name, int threads) {
        if (instances.containsKey(name)) {
            throw new IllegalArgumentException("instance " + name + " already runs");
        }
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateRoot + "/" + name);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, name);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        KafkaStreams streams = new KafkaStreams(topology(), props);
        instances.put(name, streams);
        streams.start();
    }

    private void stop(String name) {
        KafkaStreams streams = instances.remove(name);
        if (streams == null) {
            throw new IllegalArgumentException("no instance " + name);
        }
        // Its stream threads leave the group now, rather than when their session times out.
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(20)));
    }

    private void describe(ObjectNode reply) throws Exception {
        ObjectNode local = reply.putObject("instances");
        instances.forEach((name, streams) -> local.put(name, streams.state().toString()));
        StreamsGroupDescription group;
        try {
            group = admin.describeStreamsGroups(List.of(applicationId))
                .describedGroups().get(applicationId).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException error) {
            if (error.getCause() instanceof GroupIdNotFoundException) {
                reply.put("state", "NONE");
                reply.putArray("members");
                reply.putArray("subtopologies");
                return;
            }
            throw error;
        }
        reply.put("state", group.groupState().toString());
        reply.put("group_epoch", group.groupEpoch());
        reply.put("target_assignment_epoch", group.targetAssignmentEpoch());
        reply.put("topology_epoch", group.topologyEpoch());
        reply.put("assignor", group.assignorName().orElse(null));
        ArrayNode subtopologies = reply.putArray("subtopologies");
        for (StreamsGroupSubtopologyDescription sub : group.subtopologies()) {
            ObjectNode node = subtopologies.addObject();
            node.put("id", sub.subtopologyId());
            ArrayNode sources = node.putArray("source_topics");
            sub.sourceTopics().forEach(sources::add);
            ObjectNode repartition = node.putObject("repartition_source_topics");
            sub.repartitionSourceTopics().forEach((t, info) -> repartition.put(t, info.partitions()));
            ObjectNode changelogs = node.putObject("state_changelog_topics");
            sub.stateChangelogTopics().forEach((t, info) -> changelogs.put(t, info.partitions()));
        }
        ArrayNode members = reply.putArray("members");
        for (StreamsGroupMemberDescription member : group.members()) {
            ObjectNode node = members.addObject();
            node.put("member_id", member.memberId());
            node.put("client_id", member.clientId());
            node.put("process_id", member.processId());
            node.put("member_epoch", member.memberEpoch());
            node.set("assignment", tasks(member.assignment()));
            node.set("target_assignment", tasks(member.targetAssignment()));
            node.set("task_offsets", offsets(member.taskOffsets()));
            node.set("task_end_offsets", offsets(member.taskEndOffsets()));
        }
    }

    private static ObjectNode tasks(StreamsGroupMemberAssignment assignment) {
        ObjectNode node = JSON.createObjectNode();
        node.set("active", taskIds(assignment.activeTasks()));
        node.set("standby", taskIds(assignment.standbyTasks()));
        node.set("warmup", taskIds(assignment.warmupTasks()));
        return node;
    }

    /** {@code [[subtopology, partition], ...]}. */
    private static ArrayNode taskIds(Collection<StreamsGroupMemberAssignment.TaskIds> ids) {
        ArrayNode array = JSON.createArrayNode();
        for (StreamsGroupMemberAssignment.TaskIds task : ids) {
            for (int partition : task.partitions()) {
                array.addArray().add(task.subtopologyId()).add(partition);
            }
        }
        return array;
    }

    /** {@code [[subtopology, partition, offset], ...]}. */
    private static ArrayNode offsets(List<StreamsGroupMemberDescription.TaskOffset> offsets) {
        ArrayNode array = JSON.createArrayNode();
        for (StreamsGroupMemberDescription.TaskOffset offset : offsets) {
            array.addArray().add(offset.subtopologyId()).add(offset.partition()).add(offset.offset());
        }
        return array;
    }

    private void closeAll() {
        List<KafkaStreams> running = new ArrayList<>(instances.values());
        instances.clear();
        // Closed together: each close waits for its threads to leave the group.
        List<Thread> closing = new ArrayList<>();
        for (KafkaStreams streams : running) {
            Thread thread = new Thread(() -> streams.close(Duration.ofSeconds(20)));
            thread.start();
            closing.add(thread);
        }
        for (Thread thread : closing) {
            try {
                thread.join();
            } catch (InterruptedException error) {
                Thread.currentThread().interrupt();
            }
        }
        admin.close(Duration.ofSeconds(5));
    }
}
