/*
 * Kafka 4.4.0's broker-side Kafka Streams task assignor ("sticky", KIP-1071 streams groups)
 * as a test oracle for planner.assignors.streams_sticky.
 *
 *   streams_assign {"members": [{"id": memberId, "process": processId,
 *                                "active": [[subtopology, [partition, ...]], ...],
 *                                "standby": [[subtopology, [partition, ...]], ...],
 *                                "offsets": [[subtopology, partition, offsetSum], ...]}, ...],
 *                   "subtopologies": [{"id": s, "tasks": n, "stateful": bool}, ...],
 *                   "standbys": num.standby.replicas}
 *                  -> {"ok": true, "assignment": {memberId: {"active": [[s, p], ...],
 *                                                            "standby": [[s, p], ...]}}}
 *
 * The GroupSpec is built as the coordinator's streams TargetAssignmentBuilder builds it:
 * members in a HashMap filled in the order given (standing for the group's member map),
 * each a MemberMetadataAndStateImpl holding its process id, its current active and standby
 * tasks and its reported task offsets (no static instance id, rack, client tags, warm-up
 * tasks or end offsets), wrapped by GroupSpecImpl with AssignmentConfigsImpl. The
 * TopologyDescriber lists the subtopologies in the order given.
 *
 * Written for the planner's tests; it calls Kafka's classes and copies none of their code.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

final class StreamsAssignor {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StreamsAssignor() {
    }

    static ObjectNode assign(JsonNode request) {
        Map<String, MemberMetadataAndStateImpl> members = new HashMap<>();
        for (JsonNode member : request.path("members")) {
            Map<String, Map<Integer, Long>> offsets = new HashMap<>();
            for (JsonNode entry : member.path("offsets")) {
                offsets.computeIfAbsent(entry.get(0).asText(), s -> new HashMap<>())
                    .put(entry.get(1).asInt(), entry.get(2).asLong());
            }
            members.put(member.get("id").asText(), new MemberMetadataAndStateImpl(
                Optional.empty(),
                Optional.empty(),
                member.get("process").asText(),
                Map.of(),
                tasks(member.path("active")),
                tasks(member.path("standby")),
                Map.of(),
                offsets,
                Map.of()));
        }
        List<String> ids = new ArrayList<>();
        Map<String, Integer> taskCounts = new HashMap<>();
        Set<String> stateful = new HashSet<>();
        for (JsonNode subtopology : request.path("subtopologies")) {
            String id = subtopology.get("id").asText();
            ids.add(id);
            taskCounts.put(id, subtopology.get("tasks").asInt());
            if (subtopology.path("stateful").asBoolean(true)) {
                stateful.add(id);
            }
        }
        TopologyDescriber topology = new TopologyDescriber() {
            @Override
            public List<String> subtopologies() {
                return ids;
            }

            @Override
            public int maxNumInputPartitions(String subtopologyId) {
                Integer n = taskCounts.get(subtopologyId);
                if (n == null) {
                    throw new NoSuchElementException(subtopologyId);
                }
                return n;
            }

            @Override
            public boolean isStateful(String subtopologyId) {
                return stateful.contains(subtopologyId);
            }
        };
        AssignmentConfigsImpl configs =
            new AssignmentConfigsImpl(request.path("standbys").asInt(0), List.of());
        GroupAssignment result =
            new StickyTaskAssignor().assign(new GroupSpecImpl(members, configs), topology);

        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ObjectNode assignment = reply.putObject("assignment");
        for (Map.Entry<String, MemberAssignment> entry : new TreeMap<>(result.members()).entrySet()) {
            ObjectNode member = assignment.putObject(entry.getKey());
            member.set("active", taskList(entry.getValue().activeTasks()));
            member.set("standby", taskList(entry.getValue().standbyTasks()));
        }
        return reply;
    }

    private static Map<String, Set<Integer>> tasks(JsonNode grouped) {
        Map<String, Set<Integer>> out = new HashMap<>();
        for (JsonNode entry : grouped) {
            Set<Integer> partitions = out.computeIfAbsent(entry.get(0).asText(), s -> new HashSet<>());
            for (JsonNode p : entry.get(1)) {
                partitions.add(p.asInt());
            }
        }
        return out;
    }

    private static ArrayNode taskList(Map<String, Set<Integer>> tasks) {
        ArrayNode out = JSON.createArrayNode();
        for (Map.Entry<String, Set<Integer>> entry : new TreeMap<>(tasks).entrySet()) {
            for (int p : new TreeSet<>(entry.getValue())) {
                ArrayNode task = out.addArray();
                task.add(entry.getKey());
                task.add(p);
            }
        }
        return out;
    }
}
