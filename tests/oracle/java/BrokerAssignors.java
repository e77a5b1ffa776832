/*
 * Kafka 4.4.0's broker-side assignors (the group coordinator's uniform, range and simple)
 * as a test oracle for planner.assignors' consumer and share protocols.
 *
 *   server_assign {"assignor": "uniform" | "range" | "simple",
 *                  "topics": {"t": {"id": base64 topic id, "partitions": n}, ...},
 *                  "members": [{"id": memberId, "topics": [topic name, ...],
 *                               "instance": groupInstanceId,          (absent: dynamic)
 *                               "target": [[topic, [partition, ...]], ...]}, ...],
 *                  "heartbeat": bool}                                 (default false)
 *                 -> {"ok": true, "assignment": {memberId: [[topic, partition], ...]}}
 *   server_topics {"assignor": ..., "topics": {...}, "members": [...], "heartbeat": bool}
 *                 -> {"ok": true, "topics": {memberId: [topic name, ...]}}: each member's
 *                 topics in the order its TopicIds iterates them (names without a topic
 *                 skipped), the order the assignors see.
 *   server_bench  {"assignor": ..., "partitionCounts": [...], "scenario": "fresh" | "grow",
 *                  "warmup": n, "repeat": n} -> {"ok": true, "seconds": s, "assignments": n}
 *
 * The GroupSpec is built as the coordinator's TargetAssignmentBuilder builds it: member
 * specs in a HashMap filled in the order given (standing for the group's member map),
 * each member's topic ids as Kafka's TopicIds over the member's set of topic names (names
 * without a topic are skipped), that set built by Kafka's own member classes
 * (ConsumerGroupMember, ShareGroupMember for "simple"): from "topics" as a heartbeat lists
 * them when "heartbeat" is true, else (the default) replayed from the member's
 * subscription record, which GroupCoordinatorRecordHelpers writes; its target assignment
 * as the replay of its
 * target-assignment record builds it (a HashMap filled in the record's topic order, each
 * partition list copied into a HashSet), the subscription type decided on topic names,
 * and the inverted target assignment of all members. Every partition is assignable.
 *
 * Written for the planner's tests; it calls Kafka's classes and copies none of their code.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.nio.ByteBuffer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;
import org.apache.kafka.coordinator.group.modern.consumer.ConsumerGroupMember;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupMember;

final class BrokerAssignors {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BrokerAssignors() {
    }

    static PartitionAssignor assignor(String name) {
        switch (name) {
            case "uniform":
                return new UniformAssignor();
            case "range":
                return new RangeAssignor();
            case "simple":
                return new SimpleAssignor();
            default:
                throw new IllegalArgumentException("unknown broker assignor " + name);
        }
    }

    /** One group's input, built the coordinator's way. */
    private static final class Group {
        final Map<String, Uuid> ids = new HashMap<>();
        final Map<Uuid, String> names = new HashMap<>();
        final Map<Uuid, Integer> counts = new HashMap<>();
        final Map<String, Set<Uuid>> topicIds = new LinkedHashMap<>();
        GroupSpecImpl spec;

        TopicIds.TopicResolver resolver() {
            return new TopicIds.TopicResolver() {
                @Override
                public CoordinatorMetadataImage image() {
                    return CoordinatorMetadataImage.EMPTY;
                }

                @Override
                public String name(Uuid id) {
                    return names.get(id);
                }

                @Override
                public Uuid id(String name) {
                    return ids.get(name);
                }

                @Override
                public void clear() {
                }
            };
        }

        SubscribedTopicDescriber describer() {
            return new SubscribedTopicDescriber() {
                @Override
                public int numPartitions(Uuid topicId) {
                    return counts.getOrDefault(topicId, -1);
                }

                @Override
                public Set<String> racksForPartition(Uuid topicId, int partition) {
                    return Set.of();
                }
            };
        }
    }

    /**
     * The member's set of topic names as the coordinator holds it: Kafka's member builder
     * copies the heartbeat's list into a set; replaying the subscription record (names
     * sorted by the record helper) builds it again from the record's list.
     */
    private static Set<String> subscribedNames(
            boolean share, String memberId, List<String> listed, boolean heartbeat) {
        if (share) {
            ShareGroupMember member = new ShareGroupMember.Builder(memberId)
                    .setSubscribedTopicNames(listed).build();
            if (heartbeat) {
                return member.subscribedTopicNames();
            }
            CoordinatorRecord record =
                    GroupCoordinatorRecordHelpers.newShareGroupMemberSubscriptionRecord("g", member);
            return new ShareGroupMember.Builder(memberId)
                    .updateWith((ShareGroupMemberMetadataValue) record.value().message())
                    .build().subscribedTopicNames();
        }
        ConsumerGroupMember member = new ConsumerGroupMember.Builder(memberId)
                .setSubscribedTopicNames(listed).build();
        if (heartbeat) {
            return member.subscribedTopicNames();
        }
        CoordinatorRecord record =
                GroupCoordinatorRecordHelpers.newConsumerGroupMemberSubscriptionRecord("g", member);
        return new ConsumerGroupMember.Builder(memberId)
                .updateWith((ConsumerGroupMemberMetadataValue) record.value().message())
                .build().subscribedTopicNames();
    }

    private static Group group(JsonNode request) {
        Group group = new Group();
        boolean share = request.path("assignor").asText().equals("simple");
        boolean heartbeat = request.path("heartbeat").asBoolean(false);
        request.get("topics").fields().forEachRemaining(e -> {
            Uuid id = Uuid.fromString(e.getValue().get("id").asText());
            group.ids.put(e.getKey(), id);
            group.names.put(id, e.getKey());
            group.counts.put(id, e.getValue().get("partitions").asInt());
        });
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        Set<Set<String>> nameSets = new HashSet<>();
        for (JsonNode member : request.get("members")) {
            String memberId = member.get("id").asText();
            List<String> listed = new ArrayList<>();
            member.get("topics").forEach(topic -> listed.add(topic.asText()));
            Set<String> names = subscribedNames(share, memberId, listed, heartbeat);
            Set<Uuid> topicIds = new TopicIds(names, group.resolver());
            group.topicIds.put(memberId, topicIds);
            nameSets.add(names);
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            for (JsonNode entry : member.path("target")) {
                Uuid id = group.ids.get(entry.get(0).asText());
                List<Integer> partitions = new ArrayList<>();
                for (JsonNode p : entry.get(1)) {
                    partitions.add(p.asInt());
                    inverted.computeIfAbsent(id, k -> new HashMap<>()).put(p.asInt(), memberId);
                }
                target.putIfAbsent(id, new HashSet<>(partitions));
            }
            JsonNode instance = member.get("instance");
            specs.put(memberId, new MemberSubscriptionAndAssignmentImpl(
                    Optional.empty(),
                    instance == null ? Optional.empty() : Optional.of(instance.asText()),
                    topicIds,
                    new Assignment(target)));
        }
        SubscriptionType type = nameSets.size() <= 1
                ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
        group.spec = new GroupSpecImpl(
                java.util.Collections.unmodifiableMap(specs), type, inverted, Optional.empty());
        return group;
    }

    static ObjectNode topics(JsonNode request) {
        Group group = group(request);
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ObjectNode topics = reply.putObject("topics");
        group.topicIds.forEach((memberId, ids) -> {
            ArrayNode names = topics.putArray(memberId);
            ids.forEach(id -> names.add(group.names.get(id)));
        });
        return reply;
    }

    static ObjectNode assign(JsonNode request) {
        Group group = group(request);
        GroupAssignment result = assignor(request.get("assignor").asText())
                .assign(group.spec, group.describer());
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        ObjectNode assignment = reply.putObject("assignment");
        for (Map.Entry<String, MemberAssignment> e : result.members().entrySet()) {
            ArrayNode tps = assignment.putArray(e.getKey());
            for (Map.Entry<Uuid, Set<Integer>> topic : e.getValue().partitions().entrySet()) {
                for (int partition : topic.getValue()) {
                    ArrayNode tp = tps.addArray();
                    tp.add(group.names.get(topic.getKey()));
                    tp.add(partition);
                }
            }
        }
        return reply;
    }

    /** The planning grid of benchmarks/assignors_bench.py on the broker's classes. */
    static ObjectNode bench(JsonNode request) {
        PartitionAssignor assignor = assignor(request.get("assignor").asText());
        boolean grow = request.path("scenario").asText("fresh").equals("grow");
        int warmup = request.path("warmup").asInt(3);
        int repeat = request.path("repeat").asInt(5);
        List<Group> groups = new ArrayList<>();
        for (JsonNode count : request.get("partitionCounts")) {
            int partitions = count.asInt();
            for (int members = 1; members <= partitions; members++) {
                groups.add(group(benchGroup(assignor, partitions, members, grow)));
            }
        }
        double best = Double.MAX_VALUE;
        for (int round = 0; round < warmup + repeat; round++) {
            long start = System.nanoTime();
            for (Group g : groups) {
                assignor.assign(g.spec, g.describer());
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (round >= warmup) {
                best = Math.min(best, seconds);
            }
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.put("ok", true);
        reply.put("seconds", best);
        reply.put("assignments", groups.size());
        return reply;
    }

    private static final String BENCH_TOPIC_ID = "2i5pS0Q3T3anZrJ3rBNdaA";

    /** A group of C members over topic t; "grow": C settled members (Kafka's own
     *  assignment as their target) joined by one new member. */
    private static JsonNode benchGroup(PartitionAssignor assignor, int partitions, int members, boolean grow) {
        ObjectNode request = JSON.createObjectNode();
        ObjectNode topic = request.putObject("topics").putObject("t");
        topic.put("id", BENCH_TOPIC_ID);
        topic.put("partitions", partitions);
        ArrayNode list = request.putArray("members");
        for (int i = 0; i < members; i++) {
            ObjectNode m = list.addObject();
            m.put("id", "consumer-" + i);
            m.putArray("topics").add("t");
        }
        if (!grow) {
            return request;
        }
        Group settled = group(request);
        GroupAssignment result = assignor.assign(settled.spec, settled.describer());
        for (JsonNode m : list) {
            MemberAssignment a = result.members().get(m.get("id").asText());
            ArrayNode target = ((ObjectNode) m).putArray("target");
            if (a != null) {
                for (Map.Entry<Uuid, Set<Integer>> e : a.partitions().entrySet()) {
                    ArrayNode entry = target.addArray();
                    entry.add("t");
                    ArrayNode ps = entry.addArray();
                    e.getValue().forEach(ps::add);
                }
            }
        }
        ObjectNode joiner = list.addObject();
        joiner.put("id", "consumer-" + members);
        joiner.putArray("topics").add("t");
        return request;
    }
}
