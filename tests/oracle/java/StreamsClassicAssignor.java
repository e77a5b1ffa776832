/*
 * Kafka 4.4.0's Kafka Streams leader on the classic protocol (StreamsPartitionAssignor with its
 * default HighAvailabilityTaskAssignor) as a test oracle for planner.assignors.streams_classic.
 *
 *   streams_classic_assign
 *       {"clients": [{"process": uuid,
 *                     "consumers": [{"id": memberId,
 *                                    "offsets": [[subtopology, partition, offsetSum], ...]},
 *                                   ...]}, ...],
 *        "stateful": [[subtopology, partition], ...], "stateless": [[s, p], ...],
 *        "endOffsets": [[s, p, endOffsetSum], ...]  (absent task: 0),
 *        "standbys": num.standby.replicas, "acceptableRecoveryLag": records,
 *        "maxWarmups": max.warmup.replicas}
 *   -> {"ok": true, "probing": bool,
 *       "clients": {processId: {"active": [[s, p], ...], "standby": [[s, p], ...]}},
 *       "threads": {memberId: {"active": [[s, p], ...], "standby": [[s, p], ...]}}}
 *
 * How the inputs are built, following StreamsPartitionAssignor.assign (its "Step Zero",
 * ClientMetadata and populateClientStatesMap) without a topology, a cluster or an admin client:
 * one public ClientState(ProcessId, no client tags) per process; per consumer (thread) what
 * ClientMetadata.addConsumer and addPreviousTasksAndOffsetSums do (incrementCapacity,
 * addOwnedPartitions with no owned partitions, addPreviousTasksAndOffsetSums with the thread's
 * reported offset sums); then initializePrevTasks (no partitions: an empty task-for-partition
 * map) and computeTaskLags with the given end offset sums of the stateful tasks. The task
 * assignor is the public HighAvailabilityTaskAssignor.assign with a RackAwareTaskAssignor whose
 * consumers report no rack (so it stays off) and the public AssignmentConfigs constructor
 * (rack-aware strategy "none", no client tags). Tasks go to threads by
 * StreamsPartitionAssignor.assignTasksToThreads, package-private and static, called by
 * reflection three times per client as computeNewAssignment does (stateful actives, standbys,
 * stateless actives, one thread-load map). With nothing owned, computeNewAssignment hands every
 * task it decided to its thread, so those lists are the group's assignment.
 *
 * Written for the planner's tests; it calls Kafka's classes and copies none of their code.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

final class StreamsClassicAssignor {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long PROBING_INTERVAL_MS = 600_000L;
    private static Method assignTasksToThreads;

    private StreamsClassicAssignor() {
    }

    static ObjectNode assign(JsonNode request) {
        Map<ProcessId, ClientState> clientStates = new HashMap<>();
        Map<ProcessId, SortedSet<String>> consumersOf = new HashMap<>();
        Map<ProcessId, Map<String, Optional<String>>> racks = new HashMap<>();
        for (JsonNode client : request.path("clients")) {
            ProcessId process = new ProcessId(UUID.fromString(client.get("process").asText()));
            ClientState state = clientStates.computeIfAbsent(
                process, p -> new ClientState(p, Collections.emptyMap()));
            SortedSet<String> consumers = consumersOf.computeIfAbsent(process, p -> new TreeSet<>());
            for (JsonNode consumer : client.path("consumers")) {
                String id = consumer.get("id").asText();
                consumers.add(id);
                state.incrementCapacity();
                state.addOwnedPartitions(List.of(), id);
                Map<TaskId, Long> offsetSums = new HashMap<>();
                for (JsonNode entry : consumer.path("offsets")) {
                    offsetSums.put(new TaskId(entry.get(0).asInt(), entry.get(1).asInt()),
                        entry.get(2).asLong());
                }
                state.addPreviousTasksAndOffsetSums(id, offsetSums);
                racks.computeIfAbsent(process, p -> new HashMap<>()).put(id, Optional.empty());
            }
        }
        Set<TaskId> stateful = taskSet(request.path("stateful"));
        Set<TaskId> allTasks = new HashSet<>(stateful);
        allTasks.addAll(taskSet(request.path("stateless")));
        Map<TaskId, Long> endOffsetSums = new HashMap<>();
        for (TaskId task : stateful) {
            endOffsetSums.put(task, 0L);
        }
        for (JsonNode entry : request.path("endOffsets")) {
            endOffsetSums.put(new TaskId(entry.get(0).asInt(), entry.get(1).asInt()), entry.get(2).asLong());
        }
        for (Map.Entry<ProcessId, ClientState> entry : clientStates.entrySet()) {
            entry.getValue().initializePrevTasks(Map.of(), false);
            entry.getValue().computeTaskLags(entry.getKey(), endOffsetSums);
        }

        AssignmentConfigs configs = new AssignmentConfigs(
            request.path("acceptableRecoveryLag").asLong(10_000L),
            request.path("maxWarmups").asInt(2),
            request.path("standbys").asInt(0),
            PROBING_INTERVAL_MS,
            List.of(),
            OptionalInt.empty(),
            OptionalInt.empty(),
            "none");
        RackAwareTaskAssignor rackAware = new RackAwareTaskAssignor(
            Cluster.empty(), Map.of(), Map.of(), Map.of(), racks, null, configs, Time.SYSTEM);
        boolean probing = new HighAvailabilityTaskAssignor()
            .assign(clientStates, allTasks, stateful, rackAware, configs);

        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        reply.put("probing", probing);
        ObjectNode clients = reply.putObject("clients");
        ObjectNode threads = reply.putObject("threads");
        for (Map.Entry<ProcessId, ClientState> entry : new TreeMap<>(clientStates).entrySet()) {
            ClientState state = entry.getValue();
            ObjectNode client = clients.putObject(entry.getKey().id().toString());
            client.set("active", taskList(state.activeTasks()));
            client.set("standby", taskList(state.standbyTasks()));

            SortedSet<String> consumers = consumersOf.get(entry.getKey());
            Map<String, Integer> threadLoad = new HashMap<>();
            Map<String, List<TaskId>> active = toThreads(state.statefulActiveTasks(), true, consumers, state, threadLoad);
            Map<String, List<TaskId>> standby = toThreads(state.standbyTasks(), true, consumers, state, threadLoad);
            Map<String, List<TaskId>> stateless = toThreads(state.statelessActiveTasks(), false, consumers, state, threadLoad);
            for (String consumer : consumers) {
                ObjectNode thread = threads.putObject(consumer);
                Set<TaskId> actives = new TreeSet<>(active.get(consumer));
                actives.addAll(stateless.get(consumer));
                thread.set("active", taskList(actives));
                thread.set("standby", taskList(standby.get(consumer)));
            }
        }
        return reply;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<TaskId>> toThreads(Collection<TaskId> tasks, boolean isStateful,
            SortedSet<String> consumers, ClientState state, Map<String, Integer> threadLoad) {
        try {
            if (assignTasksToThreads == null) {
                Method method = StreamsPartitionAssignor.class.getDeclaredMethod("assignTasksToThreads",
                    Collection.class, boolean.class, SortedSet.class, ClientState.class, Map.class);
                method.setAccessible(true);
                assignTasksToThreads = method;
            }
            return (Map<String, List<TaskId>>) assignTasksToThreads.invoke(
                null, tasks, isStateful, consumers, state, threadLoad);
        } catch (InvocationTargetException e) {
            // Kafka's own exception (a TaskAssignmentException, a NullPointerException) is the answer.
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException(cause);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("StreamsPartitionAssignor.assignTasksToThreads is not as expected", e);
        }
    }

    private static Set<TaskId> taskSet(JsonNode tasks) {
        Set<TaskId> out = new HashSet<>();
        for (JsonNode task : tasks) {
            out.add(new TaskId(task.get(0).asInt(), task.get(1).asInt()));
        }
        return out;
    }

    private static ArrayNode taskList(Collection<TaskId> tasks) {
        ArrayNode out = JSON.createArrayNode();
        for (TaskId task : new TreeSet<>(tasks)) {
            ArrayNode pair = out.addArray();
            pair.add(task.subtopology());
            pair.add(task.partition());
        }
        return out;
    }
}
